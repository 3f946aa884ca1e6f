/**
 * The Events of dynamic provisioning through an external (CSI) provisioner, as on EKS with the EBS
 * CSI driver, recorded on the claim:
 * - the PV controller's `ExternalProvisioning` (`pkg/controller/volume/persistentvolume/pv_controller.go`
 *   provisionClaimOperationExternal): "Waiting for a volume to be created either by the external
 *   provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is
 *   delayed, please verify that the provisioner is running and correctly registered.", source
 *   `persistentvolume-controller`;
 * - the provisioner's `Provisioning` "External provisioner is provisioning volume for claim
 *   "ns/name"" and `ProvisioningSucceeded` "Successfully provisioned volume pvc-…"
 *   (sig-storage-lib-external-provisioner `controller/controller.go` provisionClaimOperation),
 *   source `<driver>_ebs-csi-controller` (the real external-provisioner names itself
 *   `<driver>_<controller pod name>_<uuid>`; the world runs no controller pod to name).
 */
import { eventRecorder } from '../event-recorder.js';
import type { KubeObject } from '../object.js';
import type { ObjectStore } from '../store.js';

/** The PV controller's component name. */
export const PV_CONTROLLER_COMPONENT = 'persistentvolume-controller';

/** The external provisioner's identity for `provisioner` (the CSI driver's name). */
export function provisionerIdentity(provisioner: string): string {
  return `${provisioner}_ebs-csi-controller`;
}

/** `ExternalProvisioning` and `Provisioning`: provisioning of `claim` by `provisioner` starts. */
export function recordProvisioningStarted(store: ObjectStore, claim: KubeObject, provisioner: string): void {
  const recorder = eventRecorder(store);
  const waiting = `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`;
  recorder.record(claim, { type: 'Normal', reason: 'ExternalProvisioning', message: waiting, source: { component: PV_CONTROLLER_COMPONENT } });
  const key = `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`;
  recorder.record(claim, { type: 'Normal', reason: 'Provisioning', message: `External provisioner is provisioning volume for claim ${JSON.stringify(key)}`, source: { component: provisionerIdentity(provisioner) } });
}

/** `ProvisioningSucceeded`: the provisioner created volume `pv` for `claim`. */
export function recordProvisioningSucceeded(store: ObjectStore, claim: KubeObject, provisioner: string, pv: KubeObject): void {
  eventRecorder(store).record(claim, { type: 'Normal', reason: 'ProvisioningSucceeded', message: `Successfully provisioned volume ${pv.metadata.name ?? ''}`, source: { component: provisionerIdentity(provisioner) } });
}
