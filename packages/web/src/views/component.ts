/** A part of a page: its element and what to undo when the page goes away. */
export interface Component {
  el: HTMLElement;
  dispose(): void;
}
