export default {
  testEnvironment: 'jsdom', // or 'node'
  setupFiles: ['weblocks-wasm/test-setup'],
  testMatch: ['**/*.test.js'],
  transform: {},
};
