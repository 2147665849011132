// A same-origin iframe of a tab, driven through its embedding page in every engine: the neutral
// tab (support/fixtures.js) offers evaluate() on the top document only, so a frame's evaluate runs
// the function in the frame's own realm (iframe.contentWindow.eval) from inside the top page.
// Offers what `call` and `until` need: evaluate(fn, arg) and waitForFunction(fn, arg, options).
import { RemoteTab } from './engines/remote-tab.js';

class FrameTab extends RemoteTab {
  constructor(top, index) {
    super();
    this.top = top;
    this.index = index;
  }

  /** Runs `fn(arg)` in the frame's window; its value is copied out by the top page's evaluate. */
  evaluate(fn, arg) {
    return this.top.evaluate(async ([index, source, value]) => {
      const frame = document.querySelectorAll('iframe')[index];
      if (!frame || !frame.contentWindow) throw new Error(`no iframe #${index} in ${location.href}`);
      return frame.contentWindow.eval(`(${source})`)(value);
    }, [this.index, String(fn), arg]);
  }
}

/** The `index`th iframe (document order) of `top`'s document; it must be same-origin. */
export function frameOf(top, index = 0) {
  return new FrameTab(top, index);
}
