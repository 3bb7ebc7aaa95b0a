// Piscina's entry for each worker thread. Piscina tries require() on its entry before import(), and on Node 20
// require() of an ES module with top-level await (worker.mjs) can race a concurrent import() of it when two
// matches start at once on a new thread, which aborts the whole process ("v8::Module::IsGraphAsync must be
// used on an instantiated module"). A CommonJS entry is required safely and loads the ES worker exactly once,
// through import(), however many tasks arrive together.
let loading = null;

module.exports = function runMatch(task) {
  loading ??= import("./worker.mjs").then((m) => m.default);
  return loading.then((run) => run(task));
};
