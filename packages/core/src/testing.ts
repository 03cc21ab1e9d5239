export { createGate, type Gate } from "./model/gate.js";
export * from "./model/scripted.js";
export * from "./testing/fake-provider/index.js";
export { seededRandom } from "./testing/seeded-random.js";
export { textTaskTypes } from "./testing/task-shapes.js";
