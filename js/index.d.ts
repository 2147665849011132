// Types of the ponyfill for ES module users: the declarations are in index.d.cts (shared with require()).
export * from './index.cjs';
