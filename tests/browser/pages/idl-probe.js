// What the locks attribute looks like in this context: NavigatorLocks' `readonly attribute
// LockManager locks` is an accessor on the interface prototype (Navigator or WorkerNavigator).
self.idlProbe = function idlProbe() {
  const iface = typeof WorkerNavigator === 'function' && navigator instanceof WorkerNavigator ? WorkerNavigator : Navigator;
  const desc = Object.getOwnPropertyDescriptor(iface.prototype, 'locks');
  let foreignThis = 'no throw';
  try { desc.get.call({}); } catch (error) { foreignThis = error.constructor.name; }
  return {
    iface: iface.name,
    inPrototype: 'locks' in iface.prototype,
    ownOnNavigator: Object.prototype.hasOwnProperty.call(navigator, 'locks'),
    getter: desc !== undefined && typeof desc.get === 'function' ? desc.get.name : null,
    setter: desc !== undefined ? typeof desc.set : null,
    enumerable: desc !== undefined && desc.enumerable,
    configurable: desc !== undefined && desc.configurable,
    foreignThis,
    sameEachTime: navigator.locks === navigator.locks,
    isLockManager: navigator.locks instanceof LockManager,
  };
};
