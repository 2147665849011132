// Types of "./register" (node --import <package>/register): a side-effect module, nothing exported.
export {};
