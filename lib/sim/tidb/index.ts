/**
 * The simulated TiDB processes, for the scenario runner and tests. Start here:
 * `startTidbWorld({clock, seed, knobs})` gives a SimWorld whose pods run PD, TiKV, TiFlash, TiDB,
 * TiCDC, Pump and discovery processes, and a `TidbSimulation` with the fault injectors
 * (`sim.faults`), the world verbs (`movePdLeader`, `setPdConfig`), the invariant monitors
 * (`sim.invariants()`) and the report's `final.pd` (`sim.snapshot(ns, name)`).
 */
export { DEFAULT_KNOBS, type TidbSimKnobs, resolveKnobs } from './knobs.js';
export { TidbFaults } from './faults.js';
export { INVARIANT_NAMES, type InvariantReport, type Violation } from './invariants.js';
export { type HandCluster, componentObjects, discoveryObjects, tidbClusterObject } from './manifests.js';
export type { ActionSink, ProcessAction } from './sim-context.js';
export { type PdSnapshot } from './snapshot.js';
export { TidbSimulation, type TidbSimulationOptions, type TidbWorldOptions, startTidbWorld } from './simulation.js';
