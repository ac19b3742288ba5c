// The floor's provider text: a dynamic provider that does nothing, stored as a few lines of code (so its state is
// as small as ours); the dynamic-provider plugin evaluates the text and calls handler(). Used by index.js (mode
// noop) and by the plugin-start benchmark (bench/plugin-start.ts), so both measure the same floor.
const source = [
  "exports.handler = () => ({",
  "  check: async (olds, news) => ({ inputs: news }),",
  "  diff: async () => ({ changes: false }),",
  "  create: async (inputs) => { const id = Date.now().toString(16) + Math.random().toString(16).slice(2); return { id, outs: { ...inputs, uid: id } }; },",
  "  read: async (id, props) => ({ id, props }),",
  "  update: async (id, olds, news) => ({ outs: { ...olds, ...news } }),",
  "  delete: async () => {},",
  "});",
].join("\n");

module.exports = { source };
