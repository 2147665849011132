// Why a held lock was lost other than by a steal: the AbortError's message (docs/browser.md,
// "When a live context loses a lock").
export const LOST = Object.freeze({
  declaredDead: 'The lock was released: this context and its sentinel did not answer the lock hub in time (frozen, or its process stopped), so the hub declared it dead.',
  notReclaimed: 'The lock was released: the lock hub was lost and this context could not take the lock back from its successor in time.',
  pageHidden: 'The lock was released when the page entered the back/forward cache.',
  pageHiddenWaiting: 'The request was aborted when the page entered the back/forward cache.',
});
