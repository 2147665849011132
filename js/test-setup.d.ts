// Types of "./test-setup" for ES module users: the declarations are in test-setup.d.cts.
export * from './test-setup.cjs';
