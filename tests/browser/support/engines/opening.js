// What the Firefox and WebKit sessions share about opening tabs: one at a time (each tab's new
// processes are told apart from those already running by looking under /proc before and after),
// and a tab's one process, or a clear error when its opening started more or fewer.

/** Runs `open` after the session's earlier openings settled, whatever their outcome. */
export function openInTurn(session, open) {
  const opened = session.opening.then(open, open);
  session.opening = opened.catch(() => {});
  return opened;
}

/** The one process that `tab`'s opening started (`what` names the kind, for the error). */
export function processOfTab(tab, what) {
  if (tab.processes.length !== 1) {
    throw new Error(`cannot tell which ${what} hosts the tab: it started ${JSON.stringify(tab.processes)}`);
  }
  return tab.processes[0];
}
