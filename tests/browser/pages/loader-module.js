// The ES module loader, unbundled, as <script type="module"> imports it (loader.html?module).
import '../../../js/browser/polyfill.js';
