// A dedicated worker running a chaos agent: native Web Locks removed, the classic polyfill, the agent.
importScripts('/tests/browser/pages/remove-native.js', '/build/dist/weblocks-polyfill.js', '/tests/model/browser/chaos-agent.js');
