// CommonJS test files (jest's own require(); no --experimental-vm-modules).
export default {
  testEnvironment: 'jsdom', // or 'node'
  setupFiles: ['weblocks-wasm/test-setup'],
  testMatch: ['**/*.test.cjs'],
};
