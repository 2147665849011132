export default {
  testEnvironment: 'jsdom', // or '@happy-dom/jest-environment', 'node'
  setupFiles: ['weblocks-wasm/test-setup'],
  testMatch: ['**/*.test.js'],
  transform: {},
};
