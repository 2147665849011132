// Types of "./polyfill" for ES module users: the declarations are in polyfill.d.cts (shared with require()).
export * from './polyfill.cjs';
