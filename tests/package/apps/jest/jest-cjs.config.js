// CommonJS test files (jest's own require(); no --experimental-vm-modules).
export default {
  testEnvironment: 'jsdom', // or '@happy-dom/jest-environment', 'node'
  setupFiles: ['weblocks-wasm/test-setup'],
  testMatch: ['**/*.test.cjs'],
};
