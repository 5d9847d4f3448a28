import { mountPlan, type MountPlanInput } from "./mount-plan.js";

/**
 * SBX-2: inside the sandbox's empty network namespace (bwrap brings loopback up), a tiny
 * forwarder listens on 127.0.0.1:{@link FORWARDER_PORT} and relays every connection to the egress
 * proxy's Unix socket; HTTP_PROXY / HTTPS_PROXY / ALL_PROXY point at it. Perl starts in a few
 * milliseconds and is in every Debian base image; where it is missing the same relay runs on
 * node (on the read-only root like the agent's own). The forwarder starts beside the agent (the
 * agent is exec'd at once, so it stays the sandbox's main process with Grove's stdio), and it
 * dies with the sandbox's pid namespace.
 */
export const FORWARDER_PORT = 3128;

/** Where the proxy's socket appears inside (the sandbox's own empty `/run`). */
export const EGRESS_SOCKET_INSIDE = "/run/grove-egress.sock";

const PERL_FORWARDER = String.raw`
use strict; use IO::Socket::INET; use IO::Socket::UNIX; use IO::Select;
$SIG{CHLD} = 'IGNORE';
my ($path, $port) = @ARGV;
my $l = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $port, Listen => 128, ReuseAddr => 1) or die "grove egress forwarder: $!\n";
while (1) {
  my $c = $l->accept or next;
  my $pid = fork;
  if (!defined $pid || $pid) { close $c; next; }
  close $l;
  my $u = IO::Socket::UNIX->new(Peer => $path) or exit 1;
  my %peer = ($c => $u, $u => $c);
  my $s = IO::Select->new($c, $u);
  while ($s->count) {
    for my $h ($s->can_read) {
      my $n = sysread($h, my $buf, 65536);
      if (!$n) { shutdown($peer{$h}, 1); $s->remove($h); next; }
      my $off = 0;
      while ($off < $n) { my $w = syswrite($peer{$h}, $buf, $n - $off, $off); exit 0 unless defined $w; $off += $w; }
    }
  }
  exit 0;
}`;

const NODE_FORWARDER = `const net=require("net");const[s,p]=process.argv.slice(1);net.createServer((c)=>{const u=net.connect(s);c.pipe(u);u.pipe(c);c.on("error",()=>u.destroy());u.on("error",()=>c.destroy());}).listen(Number(p),"127.0.0.1");`;

// $1 perl source, $2 node source, $3 socket, $4 port, then the agent's command and args.
const START = `if command -v perl >/dev/null 2>&1; then perl -e "$1" "$3" "$4"; else node -e "$2" "$3" "$4"; fi </dev/null >/dev/null &
shift 4
exec "$@"`;

/** The proxy URL the agent's tools use inside the sandbox. */
export const PROXY_URL = `http://127.0.0.1:${FORWARDER_PORT}`;

/**
 * The variables a confined agent gets on top of its profile's: its own HOME and tmp, the proxy
 * for every client that honours the usual names (no NO_PROXY: loopback inside is empty, so
 * even a fake API on the host's loopback is reached through the proxy), and no ssh agent.
 */
export function sandboxEnv(agentHome: string): Record<string, string | undefined> {
  return {
    HOME: agentHome,
    TMPDIR: "/tmp",
    HTTP_PROXY: PROXY_URL,
    HTTPS_PROXY: PROXY_URL,
    ALL_PROXY: PROXY_URL,
    http_proxy: PROXY_URL,
    https_proxy: PROXY_URL,
    all_proxy: PROXY_URL,
    NO_PROXY: undefined,
    no_proxy: undefined,
    SSH_AUTH_SOCK: undefined,
  };
}

/** bwrap's command line: the mount plan, then the forwarder beside the agent's own command. */
export function sandboxedCommand(
  bwrap: string,
  plan: MountPlanInput & { egress: { socket: string; inside: string } },
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  return {
    command: bwrap,
    args: [
      ...mountPlan(plan),
      "--",
      "/bin/sh",
      "-c",
      START,
      "grove-sandbox",
      PERL_FORWARDER,
      NODE_FORWARDER,
      plan.egress.inside,
      String(FORWARDER_PORT),
      command,
      ...args,
    ],
  };
}
