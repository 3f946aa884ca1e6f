/**
 * What the step observed, as the rules read it: every rule reads the snapshot's objects, PD's view
 * and read errors through these accessors, so how the snapshot holds them is decided in one place.
 */

import type { INode } from 'kubernetes-models/v1/Node';
import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';

import type { OwnedKind, OwnedObjects } from '../../model/kube.js';
import type { PdView } from '../../model/pd.js';
import type { TidbView } from '../../model/tidb.js';
import type { PumpView, TicdcView } from '../../model/ticdc.js';
import type { TiproxyView } from '../../model/tiproxy.js';
import type { TiflashView } from '../../model/tiflash.js';
import { allObjects, type PdReadFailure, type Snapshot } from '../../model/snapshot.js';

/** The observed objects of `kind` the cluster owns, its components' and its own, in name order. */
export const observedObjects = <K extends OwnedKind>(snapshot: Snapshot, kind: K): OwnedObjects[K] => allObjects(snapshot, kind);

/** The PersistentVolumes bound to the cluster's claims (none when none was read). */
export const observedVolumes = (snapshot: Snapshot): readonly IPersistentVolume[] => snapshot.volumes ?? [];

/** The Nodes read for store and server labels (none when none was read). */
export const observedNodes = (snapshot: Snapshot): readonly INode[] => snapshot.nodes ?? [];

/** PD as the step read it; undefined when PD was not read (no PD) or could not be. */
export const observedPd = (snapshot: Snapshot): PdView | undefined => snapshot.components.pd.view;

/** Why PD could not be read, when it was asked and failed. */
export const pdReadError = (snapshot: Snapshot): string | undefined => snapshot.components.pd.error;

/** What kind of failure the PD read was, when the observer told. */
export const pdReadErrorKind = (snapshot: Snapshot): PdReadFailure | undefined => snapshot.components.pd.errorKind;

/** The store id the state table holds for a pod of a store component (undefined: none recorded). */
export const persistedStoreId = (snapshot: Snapshot, component: string, podName: string): string | undefined =>
  snapshot.state.storeIds?.find((r) => r.component === component && r.podName === podName)?.storeId;

/** The TiDB servers' `/status` as the step read them; undefined when not read (no TiDB) or the read failed. */
export const observedTidb = (snapshot: Snapshot): TidbView | undefined => snapshot.components.tidb.view;

/** Why the TiDB servers could not be read, when they were asked and our path to them failed. */
export const tidbReadError = (snapshot: Snapshot): string | undefined => snapshot.components.tidb.error;

/** The Secrets the reconciler itself needs that do not exist. */
export const missingSecrets = (snapshot: Snapshot): readonly string[] => snapshot.missingSecrets ?? [];

/** TiCDC as the step read it (captures, drains); undefined when it was not read (no TiCDC, cluster gone). */
export const observedTicdc = (snapshot: Snapshot): TicdcView | undefined => snapshot.components.ticdc.view;

/** Pump as the step read it (the binlog registry); undefined when it was not read. */
export const observedPump = (snapshot: Snapshot): PumpView | undefined => snapshot.components.pump.view;

/** TiFlash's proxy store status as the step read it, by pod; undefined when TiFlash was not read. */
export const observedTiflash = (snapshot: Snapshot): TiflashView | undefined => snapshot.components.tiflash.view;

/** TiProxy's health as the step read it, by pod; undefined when TiProxy was not read. */
export const observedTiproxy = (snapshot: Snapshot): TiproxyView | undefined => snapshot.components.tiproxy.view;
