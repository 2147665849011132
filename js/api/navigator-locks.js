// navigator.locks as WebIDL has it (`readonly attribute LockManager locks`: an accessor on the
// interface prototype object, enumerable and configurable), served per navigator. A DOM emulation
// may share one Navigator class among all the windows of a process (happy-dom does), and a test
// runner may load one copy of this package per test file into one thread (vitest's vmThreads,
// jest): so the getter finds each navigator's LockManager in a table that every copy shares, kept
// on the object that holds the attribute under a registry symbol, never in a closure over one
// navigator. Whether to install is decided from that table, never by reading navigator.locks
// through a getter of ours.

const TABLE = Symbol.for('weblocks-wasm.navigator-locks@1');

/** The first object on navigator's chain that holds 'locks', its descriptor, and our table if the attribute there is ours. */
function attributeOf(navigator) {
  for (let holder = navigator; holder !== null; holder = Object.getPrototypeOf(holder)) {
    const desc = Object.getOwnPropertyDescriptor(holder, 'locks');
    if (desc === undefined) continue;
    const table = Object.prototype.hasOwnProperty.call(holder, TABLE) ? holder[TABLE] : undefined;
    return { holder, desc, table: table !== undefined && isServedBy(table, desc, holder) ? table : undefined };
  }
  return { holder: null, desc: undefined, table: undefined };
}

// Ours: the accessor is the table's getter, or (an own property of a navigator that belongs to no
// interface) the value is the LockManager the table serves to that navigator.
function isServedBy(table, desc, holder) {
  if (table.get !== undefined) return desc.get === table.get;
  return desc.value !== undefined && desc.value === table.served.get(holder);
}

/** The LockManager that a copy of this package serves as this navigator's locks, or undefined. Calls no getter. */
export function servedLocks(navigator) {
  return attributeOf(navigator).table?.served.get(navigator);
}

/**
 * What navigator.locks is without this package: `value`, the built-in's or the emulation's (a
 * getter that throws counts as none), and `replaced`, whether a copy of this package removed a
 * built-in here before.
 */
export function locksWithoutUs(navigator) {
  const { desc, table } = attributeOf(navigator);
  const replaced = table?.replaced === true;
  try {
    return { value: valueOf(table === undefined ? desc : table.previous, navigator), replaced };
  } catch {
    return { value: undefined, replaced };
  }
}

function valueOf(desc, self) {
  if (desc === undefined) return undefined;
  return desc.get === undefined ? desc.value : desc.get.call(self);
}

/**
 * Serves `locks` as navigator.locks: an accessor on `iface.prototype` (Navigator, WorkerNavigator)
 * whose getter gives each navigator served the LockManager served to it, and anything else what
 * the attribute gave before (happy-dom's null for a window that did not install) or, where there
 * was nothing, a TypeError; without an interface, an own property of the navigator (a plain object
 * some host made). replaceBuiltIn: the built-in attribute is removed first, so nothing reaches it.
 */
export function serveLocks(navigator, iface, locks, { replaceBuiltIn = false } = {}) {
  const holder = iface === undefined ? navigator : iface.prototype;
  let replaced = attributeOf(navigator).table?.replaced === true;
  if (replaceBuiltIn) {
    for (let proto = Object.getPrototypeOf(navigator); proto !== null; proto = Object.getPrototypeOf(proto)) {
      const desc = Object.getOwnPropertyDescriptor(proto, 'locks');
      if (desc !== undefined && desc.configurable) delete proto.locks;
    }
    replaced = true;
  }
  if (holder !== navigator && Object.getOwnPropertyDescriptor(navigator, 'locks')?.configurable) delete navigator.locks;
  const current = Object.getOwnPropertyDescriptor(holder, 'locks');
  let table = Object.prototype.hasOwnProperty.call(holder, TABLE) ? holder[TABLE] : undefined;
  if (table === undefined || current === undefined || !isServedBy(table, current, holder)) {
    table = { served: new WeakMap(), get: undefined, previous: current, replaced };
    if (holder !== navigator) table.get = getterFor(table);
    Object.defineProperty(holder, TABLE, { value: table, configurable: true });
  }
  table.replaced ||= replaced;
  table.served.set(navigator, locks);
  Object.defineProperty(holder, 'locks', table.get === undefined
    ? { value: locks, writable: false, enumerable: true, configurable: true }
    : { get: table.get, set: undefined, enumerable: true, configurable: true });
}

function getterFor(table) {
  return Object.getOwnPropertyDescriptor({
    get locks() {
      const locks = table.served.get(this);
      if (locks !== undefined) return locks;
      if (table.previous !== undefined) return valueOf(table.previous, this);
      throw new TypeError("Illegal invocation: 'locks' getter called on an object that is not a navigator with navigator.locks installed");
    },
  }, 'locks').get;
}
