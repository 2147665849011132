// Types of "./register-etcd" (node --import <package>/register-etcd, with WEBLOCKS_ETCD_ENDPOINTS):
// a side-effect module, nothing exported.
export {};
