// A context's presence on the demo bus: it announces its name, implementation and the locks it
// holds or waits for (with the time each started), right after every change, and answers "hello"
// from newcomers. Before announcing it calls query() itself: its own requests are then known to the
// lock manager, so a context that re-reads the state on our announcement sees them.
export function createPresence({ locks, bus, name, kind, parent = null, implementation, sources, onSnapshot = () => {} }) {
  let inFlight = false;
  let again = false;

  async function announce() {
    if (inFlight) { again = true; return; }
    inFlight = true;
    try {
      do {
        again = false;
        const snapshot = await locks.query();
        const message = {
          type: 'state', name, kind, parent, implementation,
          requests: sources.flatMap((source) => source()).map(({ name: lockName, mode, state, since }) => ({ name: lockName, mode, state, since })),
        };
        bus.post(message);
        onSnapshot(snapshot, message);
      } while (again);
    } finally {
      inFlight = false;
    }
  }

  return {
    announce,
    handle(message) {
      if (message.type === 'hello' && message.name !== name) announce();
    },
    greet() { bus.post({ type: 'hello', name }); },
    leave() { bus.post({ type: 'bye', name }); },
  };
}
