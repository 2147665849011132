// What tsconfig.checkjs.json's check of js/ needs beyond the libs it names: APIs the code feature-tests
// for that the pinned @types/node (20) does not declare. Types only; nothing imports this file.
declare module 'node:worker_threads' {
  /** Node 24 and Deno 2.9: the built-in LockManager (js/node/builtin-aliases.js replaces it). */
  export let locks: unknown;
}
