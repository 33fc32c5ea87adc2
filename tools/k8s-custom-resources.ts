// The custom resources the manifests use that have no model package on npm, as TypeScript shapes
// of the fields k8s/ sets (from the operators' CRDs). tools/k8s-validate.mjs type-checks every
// such object against its interface here, like the others against kubernetes-models: a misspelt
// or unknown field, a value of the wrong type or a missing required field is an error. Add a field
// here (as the CRD defines it) before using it in a manifest.
import type { IAffinity } from 'kubernetes-models/v1/Affinity';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSecurityContext } from 'kubernetes-models/v1/PodSecurityContext';
import type { IResourceRequirements } from 'kubernetes-models/v1/ResourceRequirements';

interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A container as an override patches it: by name, any other field optional. */
type ContainerOverride = Partial<IContainer> & { name: string };

/** RabbitMQ Cluster Operator, rabbitmq.com/v1beta1 RabbitmqCluster (github.com/rabbitmq/cluster-operator, config/crd). */
export interface IRabbitmqCluster {
  apiVersion: 'rabbitmq.com/v1beta1';
  kind: 'RabbitmqCluster';
  metadata: Metadata;
  spec: {
    /** Nodes; quorum queues need an odd number, at least 3, to survive the loss of one. */
    replicas: 1 | 3 | 5 | 7;
    image?: string;
    resources?: IResourceRequirements;
    persistence?: { storage?: string; storageClassName?: string };
    rabbitmq?: {
      /** Lines appended to rabbitmq.conf. */
      additionalConfig?: string;
      additionalPlugins?: string[];
      advancedConfig?: string;
    };
    affinity?: IAffinity;
    tls?: { secretName?: string; caSecretName?: string; disableNonTLSListeners?: boolean };
    terminationGracePeriodSeconds?: number;
    /** Patches of the StatefulSet the operator makes (strategic merge: containers by name). */
    override?: {
      statefulSet?: {
        spec?: {
          template?: {
            spec?: {
              securityContext?: IPodSecurityContext;
              initContainers?: ContainerOverride[];
              containers?: ContainerOverride[];
            };
          };
        };
      };
    };
  };
}
