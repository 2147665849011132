export default {
  testEnvironment: 'jsdom',
  // jsdom's environment resolves packages for browsers; the test process runs the Node build.
  testEnvironmentOptions: { customExportConditions: ['node'] },
  setupFiles: ['./jest.setup.js'],
  transform: {},
};
