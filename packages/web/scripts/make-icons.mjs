// WEB-27: draws the app icons (PNG, 192 and 512 px) without an image library: a dark green
// rounded square with a light leaf-green disc, written with node:zlib. Run once; the PNGs are
// committed (a few hundred bytes each). `node packages/web/scripts/make-icons.mjs`
import { writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
};

function icon(size) {
  const bg = [0x1f, 0x4d, 0x2f];
  const disc = [0x7e, 0xd3, 0x8f];
  const rows = [];
  const r = size * 0.3;
  const corner = size * 0.18;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      // Outside the rounded square: transparent (a maskable-safe disc stays inside the middle 60 %).
      const cx = Math.min(Math.max(x, corner), size - corner);
      const cy = Math.min(Math.max(y, corner), size - corner);
      const inSquare = (x - cx) ** 2 + (y - cy) ** 2 <= corner ** 2;
      const inDisc = (x - size / 2) ** 2 + (y - size / 2) ** 2 <= r ** 2;
      const c = inDisc ? disc : bg;
      row.set([...c, inSquare ? 255 : 0], 1 + x * 4);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const out = new URL("../public/icons/", import.meta.url);
for (const size of [192, 512]) writeFileSync(new URL(`icon-${size}.png`, out), icon(size));
