import DataLoader from 'dataloader';

// DataLoader's own schedule batches the loads made in one tick. Two root fields (aliases) finish
// their SQL at different times, so that alone would send one user query per root field; holding
// the batch until every root query has settled keeps it to one per request.
export function createContext(data) {
  let pendingRoots = 0;
  let held = [];

  const afterPromiseJobs = (dispatch) => Promise.resolve().then(() => process.nextTick(dispatch));

  return {
    data,
    root(promise) {
      pendingRoots += 1;
      return promise.finally(() => {
        pendingRoots -= 1;
        if (pendingRoots === 0) {
          const ready = held;
          held = [];
          ready.forEach(afterPromiseJobs);
        }
      });
    },
    users: new DataLoader((ids) => data.usersByIds(ids), {
      batchScheduleFn: (dispatch) =>
        (pendingRoots === 0 ? afterPromiseJobs(dispatch) : held.push(dispatch)),
    }),
  };
}
