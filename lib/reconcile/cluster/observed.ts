/**
 * What the step observed, as the rules read it: every rule reads the snapshot's objects, PD's view
 * and read errors through these accessors, so how the snapshot holds them is decided in one place.
 */

import type { IPersistentVolume } from 'kubernetes-models/v1/PersistentVolume';

import type { OwnedKind, OwnedObjects } from '../../model/kube.js';
import type { PdView } from '../../model/pd.js';
import type { TiflashView } from '../../model/tiflash.js';
import { allObjects, type PdReadFailure, type Snapshot } from '../../model/snapshot.js';

/** The observed objects of `kind` the cluster owns, its components' and its own, in name order. */
export const observedObjects = <K extends OwnedKind>(snapshot: Snapshot, kind: K): OwnedObjects[K] => allObjects(snapshot, kind);

/** The PersistentVolumes bound to the cluster's claims (none when none was read). */
export const observedVolumes = (snapshot: Snapshot): readonly IPersistentVolume[] => snapshot.volumes ?? [];

/** PD as the step read it; undefined when PD was not read (no PD) or could not be. */
export const observedPd = (snapshot: Snapshot): PdView | undefined => snapshot.components.pd.view;

/** Why PD could not be read, when it was asked and failed. */
export const pdReadError = (snapshot: Snapshot): string | undefined => snapshot.components.pd.error;

/** What kind of failure the PD read was, when the observer told. */
export const pdReadErrorKind = (snapshot: Snapshot): PdReadFailure | undefined => snapshot.components.pd.errorKind;

/** The Secrets the reconciler itself needs that do not exist. */
export const missingSecrets = (snapshot: Snapshot): readonly string[] => snapshot.missingSecrets ?? [];

/** TiFlash's proxy store status as the step read it, by pod; undefined when TiFlash was not read. */
export const observedTiflash = (snapshot: Snapshot): TiflashView | undefined => snapshot.components.tiflash.view;
