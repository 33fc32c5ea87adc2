// The Kubernetes manifests (k8s/): valid against the API schemas, overlays that patch what the base
// defines, and Deployments that match what each app serves and needs. kubernetes-models is
// ESM-only, so the schema validation runs in tools/k8s-validate.mjs, once for every file.
import type { IPodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { EVENTS_API_QUEUE, WEBHOOK_DISPATCHER_QUEUE } from '@svc/messaging';
import type { ConfigSpec } from '@svc/platform';
import type { ICluster } from '@kubernetes-models/cloudnative-pg/postgresql.cnpg.io/v1/Cluster';
import type { IPooler } from '@kubernetes-models/cloudnative-pg/postgresql.cnpg.io/v1/Pooler';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { BlockList, isIPv6 } from 'node:net';
import { join, relative } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { configSpecOf, defaultInternalPort, defaultPort, drainMs, effective, mustBeSet, refusal, root, servingApps } from './deploy-checks';
import type { IRabbitmqCluster } from './k8s-custom-resources';
import { headingAnchors } from './markdown';
import { metricNames } from './prometheus';

const K8S = join(root, 'k8s');
const BASE = join(K8S, 'base');
const SECRET_TEMPLATE = join(K8S, 'secrets.template.yaml');
const OVERLAYS = readdirSync(join(K8S, 'overlays')).sort();
/** Who owns each autoscaled Deployment's replica count: an HPA on CPU, or KEDA on the app's backlog. */
const AUTOSCALED: Record<string, 'HorizontalPodAutoscaler' | 'ScaledObject'> = {
  gateway: 'HorizontalPodAutoscaler',
  'events-api': 'ScaledObject',
  'webhook-dispatcher': 'ScaledObject',
};
/** The queue KEDA scales each consumer on (the app's main queue in libs/messaging's topology). */
const SCALED_QUEUES: Record<string, string> = {
  'events-api': EVENTS_API_QUEUE.queue,
  'webhook-dispatcher': WEBHOOK_DISPATCHER_QUEUE.queue,
};
/** The namespace annotation with the PostgreSQL connections an overlay may hold. */
const CONNECTION_BUDGET = 'svc-chat.io/postgres-connection-budget';
/**
 * Connections a pod holds beside its pool: LISTEN connections (the outbox relay's; the
 * dispatcher's and the chat's notifications) and one at start for the advisory-locked migration.
 */
const CONNECTIONS_BESIDE_POOL = 2;
const PUBLIC_APP = 'gateway';
/** The one public origin's paths and the app each goes to (CONTRACT.md "One public origin"). */
const PUBLIC_PATHS: Record<string, string> = { '/api/v1': PUBLIC_APP, '/mcp': PUBLIC_APP, '/chat/': 'chat', '/': 'console' };
const PRODUCT_LABEL = 'app.kubernetes.io/part-of';
const PRODUCT = 'svc-chat';

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
}
type Selector = NonNullable<INetworkPolicy['spec']>['podSelector'];
type Peer = NonNullable<NonNullable<NonNullable<INetworkPolicy['spec']>['ingress']>[number]['from']>[number];

interface Generator {
  name: string;
  behavior?: string;
  literals?: string[];
  files?: string[];
  envs?: string[];
}
interface Kustomization {
  kind?: string;
  namespace?: string;
  resources?: string[];
  components?: string[];
  patches?: Array<{ path?: string; patch?: string; target?: { kind?: string; name?: string } }>;
  images?: Array<{ name: string; newTag?: string; digest?: string }>;
  replicas?: Array<{ name: string; count: number }>;
  secretGenerator?: Generator[];
  configMapGenerator?: Generator[];
}

/** One way the product is deployed: the base as written, or an overlay as kubectl renders it. */
interface Variant {
  name: string;
  objects: K8sObject[];
  /** Secrets the operator creates from the template (not in the manifests): their keys, no values. */
  external: ISecret[];
}

const readKustomization = (dir: string): Kustomization => parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
const readObjects = (file: string): K8sObject[] =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
const ofKind = <T>(objects: K8sObject[], kind: string): T[] => objects.filter((o) => o.kind === kind) as unknown as T[];
const named = <T extends { metadata?: { name?: string } }>(objects: T[], name: string): T[] =>
  objects.filter((o) => o.metadata?.name === name);
const isDirectory = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();

/** The YAML files a kustomization lists as resources (directories are other kustomizations). */
/** The manifest files a kustomization lists, with those of the kustomizations it lists in its own folders (base/knowledge-api). */
const resourceFiles = (dir: string): string[] =>
  (readKustomization(dir).resources ?? [])
    .map((entry) => join(dir, entry))
    .flatMap((path) => (!isDirectory(path) ? [path] : relative(dir, path).startsWith('..') ? [] : resourceFiles(path)));

/** The ConfigMaps a kustomization generates (under their plain names; kustomize adds a hash and rewrites references). */
const generatedConfigMaps = (dir: string): K8sObject[] =>
  (readKustomization(dir).configMapGenerator ?? [])
    .filter((generator) => !generator.behavior)
    .map((generator) => {
      const lines = [
        ...(generator.literals ?? []),
        ...(generator.envs ?? []).flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n')),
      ];
      const data = Object.fromEntries(
        lines
          .filter((line) => line.trim() !== '' && !line.startsWith('#'))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name }, data } as K8sObject;
    });

const baseObjects = [...resourceFiles(BASE).flatMap(readObjects), ...generatedConfigMaps(BASE)];
const templateSecrets = ofKind<ISecret>(readObjects(SECRET_TEMPLATE), 'Secret');

const DATA_COMPONENT = join(K8S, 'components', 'data');
/** The rendering of overlays/prod with components/data added, as docs/operations.md says to add it. */
const PROD_WITH_DATA = 'prod+data';

/**
 * The Secrets the operators of components/data write, under the names the apps read (CloudNativePG
 * `<cluster>-app`, the RabbitMQ Cluster Operator `<cluster>-default-user`), with their keys and
 * values of the form the operators write (the RabbitMQ user and password are URL-safe base64).
 */
const operatorSecrets = (namespace: string): ISecret[] => [
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'svc-postgres-app' },
    stringData: {
      username: 'svc',
      password: 'pg-password',
      dbname: 'svc',
      host: 'svc-postgres-rw',
      port: '5432',
      uri: `postgresql://svc:pg-password@svc-postgres-rw.${namespace}:5432/svc`,
      'jdbc-uri': `jdbc:postgresql://svc-postgres-rw.${namespace}:5432/svc?password=pg-password&user=svc`,
      pgpass: `svc-postgres-rw:5432:svc:svc:pg-password`,
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'svc-rabbitmq-default-user' },
    stringData: {
      username: 'dXNlcl9fMDEyMzQ1Njc4OWFi',
      password: 'cGFzcy0tMDEyMzQ1Njc4OWFi',
      host: `svc-rabbitmq.${namespace}.svc.cluster.local`,
      port: '5672',
      'default_user.conf': 'default_user = dXNlcl9fMDEyMzQ1Njc4OWFi\ndefault_pass = cGFzcy0tMDEyMzQ1Njc4OWFi',
      provider: 'rabbitmq',
      type: 'rabbitmq',
    },
  },
];

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
const kustomize = (dir: string) => spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 1 << 26 });

/**
 * overlays/prod with `component` (components/data, components/tracing): a kustomization of its own
 * that adds the component to it (the same objects as listing it in the overlay).
 */
function renderProdWith(component: string): ReturnType<typeof kustomize> {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-component-'));
  try {
    const prod = join(K8S, 'overlays', 'prod');
    const wrapper = {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      namespace: readKustomization(prod).namespace,
      resources: [relative(dir, prod)],
      components: [relative(dir, component)],
    };
    writeFileSync(join(dir, 'kustomization.yaml'), stringify(wrapper));
    return kustomize(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rendered = new Map(
  kubectl
    ? [
        ...OVERLAYS.map((overlay) => [overlay, kustomize(join(K8S, 'overlays', overlay))] as const),
        [PROD_WITH_DATA, renderProdWith(DATA_COMPONENT)] as const,
      ]
    : [],
);
const itWithKubectl = kubectl ? it : it.skip;

const variants: Variant[] = [
  { name: 'base', objects: baseObjects, external: templateSecrets },
  ...[...rendered].map(([overlay, result]) => {
    const objects = result.status === 0 ? parseAllDocuments(result.stdout).map((d) => d.toJS() as K8sObject) : [];
    const defined = new Set(ofKind<ISecret>(objects, 'Secret').map((s) => s.metadata?.name));
    const operators =
      overlay === PROD_WITH_DATA ? operatorSecrets(readKustomization(join(K8S, 'overlays', 'prod')).namespace ?? 'default') : [];
    return {
      name: `overlay ${overlay} (rendered)`,
      objects,
      external: [...templateSecrets.filter((s) => !defined.has(s.metadata?.name)), ...operators],
    };
  }),
];

// ---------------------------------------------------------------------------------------------
// Selectors, pods, containers

function matches(selector: Selector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    const has = key in labels;
    if (operator === 'In') return has && values.includes(labels[key]!);
    if (operator === 'NotIn') return !has || !values.includes(labels[key]!);
    if (operator === 'Exists') return has;
    return !has;
  });
  return byLabel && byExpression;
}

/** Where a pod may open a connection to, in the policy evaluator: a pod (by labels, in a namespace) or an address. */
interface Destination {
  pod?: Record<string, string>;
  /** The destination pod's namespace; undefined: the product's own. */
  namespace?: string;
  ip?: string;
  port: number;
  /** The destination container port's name, for rules that name ports. */
  portName?: string;
  protocol?: 'TCP' | 'UDP';
}

function inIpBlock(block: { cidr: string; except?: string[] }, ip: string): boolean {
  const list = (cidrs: string[]) => {
    const blocks = new BlockList();
    for (const cidr of cidrs) {
      const [address, prefix] = cidr.split('/');
      blocks.addSubnet(address!, Number(prefix), isIPv6(address!) ? 'ipv6' : 'ipv4');
    }
    return blocks;
  };
  const type = isIPv6(ip) ? 'ipv6' : 'ipv4';
  return list([block.cidr]).check(ip, type) && !list(block.except ?? []).check(ip, type);
}

/**
 * Whether NetworkPolicies let a pod with `source` labels connect to `destination`, as the API
 * defines it: a pod selected by no policy with Egress in its types may connect anywhere; otherwise
 * some egress rule of a selecting policy must allow the port and the peer.
 */
function egressAllowed(policies: INetworkPolicy[], source: Record<string, string>, destination: Destination): boolean {
  const selecting = policies.filter((p) => matches(p.spec?.podSelector, source) && (p.spec?.policyTypes ?? []).includes('Egress'));
  if (selecting.length === 0) return true;
  return selecting
    .flatMap((p) => p.spec?.egress ?? [])
    .some((rule) => {
      const portOk =
        !rule.ports ||
        rule.ports.length === 0 ||
        rule.ports.some(
          (p) =>
            (p.protocol ?? 'TCP') === (destination.protocol ?? 'TCP') &&
            (p.port === undefined || p.port === destination.port || p.port === destination.portName),
        );
      const peerOk =
        !rule.to ||
        rule.to.length === 0 ||
        rule.to.some((peer) => {
          if (peer.ipBlock) return destination.ip !== undefined && inIpBlock(peer.ipBlock, destination.ip);
          if (!destination.pod) return false;
          const namespace = destination.namespace ?? PRODUCT;
          const namespaceOk = peer.namespaceSelector
            ? matches(peer.namespaceSelector, { 'kubernetes.io/metadata.name': namespace })
            : namespace === PRODUCT;
          return namespaceOk && (peer.podSelector ? matches(peer.podSelector, destination.pod) : true);
        });
      return portOk && peerOk;
    });
}

/** Where a connection comes from, in the policy evaluator: a pod (by labels) in a namespace (undefined: the product's own). */
interface Source {
  pod: Record<string, string>;
  namespace?: string;
}

/**
 * Whether NetworkPolicies let `source` connect to a pod with `destination` labels (in the
 * product's namespace) on `port`: a pod selected by no Ingress policy accepts anything; otherwise
 * some ingress rule of a selecting policy must allow the port and the peer.
 */
function ingressAllowed(
  policies: INetworkPolicy[],
  destination: Record<string, string>,
  source: Source,
  port: number,
  portName?: string,
): boolean {
  const selecting = policies.filter(
    (p) => matches(p.spec?.podSelector, destination) && (p.spec?.policyTypes ?? ['Ingress']).includes('Ingress'),
  );
  if (selecting.length === 0) return true;
  const namespace = source.namespace ?? PRODUCT;
  return selecting
    .flatMap((p) => p.spec?.ingress ?? [])
    .some((rule) => {
      const portOk =
        !rule.ports ||
        rule.ports.length === 0 ||
        rule.ports.some((p) => (p.protocol ?? 'TCP') === 'TCP' && (p.port === undefined || p.port === port || p.port === portName));
      const peerOk =
        !rule.from ||
        rule.from.length === 0 ||
        rule.from.some((peer) => {
          if (peer.ipBlock) return false;
          const namespaceOk = peer.namespaceSelector
            ? matches(peer.namespaceSelector, { 'kubernetes.io/metadata.name': namespace })
            : namespace === PRODUCT;
          return namespaceOk && (peer.podSelector ? matches(peer.podSelector, source.pod) : true);
        });
      return portOk && peerOk;
    });
}

const podLabels = (d: IDeployment | IJob): Record<string, string> => d.spec?.template.metadata?.labels ?? {};
const podSpec = (d: IDeployment | IJob): IPodSpec => {
  const spec = d.spec?.template.spec;
  if (!spec) throw new Error(`${d.metadata?.name} has no pod spec`);
  return spec;
};

function deploymentOf(variant: Variant, app: string): IDeployment {
  const found = named(ofKind<IDeployment>(variant.objects, 'Deployment'), app);
  if (found.length !== 1) throw new Error(`${variant.name}: expected one Deployment "${app}", found ${found.length}`);
  return found[0]!;
}

function containerOf(deployment: IDeployment, app: string): IContainer {
  const container = podSpec(deployment).containers.find((c) => c.name === app);
  if (!container) throw new Error(`Deployment ${app} has no container named ${app}`);
  return container;
}

/** A probe's or Service's port (number or name) as the container port number it reaches. */
function containerPort(container: IContainer, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

const decode = (secret: ISecret, key: string): string | undefined => {
  if (secret.stringData?.[key] !== undefined) return secret.stringData[key];
  const data = secret.data?.[key];
  return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
};

interface ResolvedEnv {
  /** Every variable the container gets; the value when the manifests hold it (not for template Secrets). */
  values: Map<string, string | undefined>;
  problems: string[];
}

/** What a container's environment holds, resolving ConfigMap and Secret references like the kubelet. */
function resolveEnv(variant: Variant, container: IContainer): ResolvedEnv {
  const values = new Map<string, string | undefined>();
  const problems: string[] = [];
  const configMap = (name: string) => named(ofKind<IConfigMap>(variant.objects, 'ConfigMap'), name)[0];
  const secret = (name: string): { secret: ISecret; external: boolean } | undefined => {
    const own = named(ofKind<ISecret>(variant.objects, 'Secret'), name)[0];
    if (own) return { secret: own, external: false };
    const external = named(variant.external, name)[0];
    return external ? { secret: external, external: true } : undefined;
  };
  const prefix = (source: { prefix?: string }) => source.prefix ?? '';
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const map = configMap(source.configMapRef.name ?? '');
      if (!map) problems.push(`envFrom ConfigMap ${source.configMapRef.name} does not exist`);
      for (const [key, value] of Object.entries(map?.data ?? {})) values.set(`${prefix(source)}${key}`, value);
    }
    if (source.secretRef) {
      const found = secret(source.secretRef.name ?? '');
      if (!found) problems.push(`envFrom Secret ${source.secretRef.name} is neither in the manifests nor in the template`);
      const keys = [...Object.keys(found?.secret.data ?? {}), ...Object.keys(found?.secret.stringData ?? {})];
      for (const key of keys) values.set(`${prefix(source)}${key}`, found?.external ? undefined : decode(found!.secret, key));
    }
  }
  /**
   * A value's `$(NAME)` references replaced from the variables before it, as the kubelet does
   * (`$$` is a `$`); undefined when one of them has no value here (a template Secret's).
   */
  const expand = (name: string, value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    let unknown = false;
    const expanded = value.replace(/\$\$|\$\(([A-Za-z_][\w.-]*)\)/g, (reference, variable?: string) => {
      if (variable === undefined) return '$';
      if (!values.has(variable)) {
        problems.push(`${name}: ${reference} is not a variable defined before it`);
        return reference;
      }
      const resolved = values.get(variable);
      if (resolved === undefined) unknown = true;
      return resolved ?? '';
    });
    return unknown ? undefined : expanded;
  };
  for (const variable of container.env ?? []) {
    const secretRef = variable.valueFrom?.secretKeyRef;
    const configMapRef = variable.valueFrom?.configMapKeyRef;
    if (secretRef) {
      const found = secret(secretRef.name ?? '');
      const keys = [...Object.keys(found?.secret.data ?? {}), ...Object.keys(found?.secret.stringData ?? {})];
      // An optional key (a rotation's previous secret) may be absent: the variable is then unset.
      const present = found !== undefined && keys.includes(secretRef.key);
      if (!present && !secretRef.optional) problems.push(`${variable.name}: Secret ${secretRef.name} has no key ${secretRef.key}`);
      if (present || !secretRef.optional)
        values.set(variable.name, found && !found.external ? decode(found.secret, secretRef.key) : undefined);
    } else if (configMapRef) {
      const value = configMap(configMapRef.name ?? '')?.data?.[configMapRef.key];
      if (value === undefined) problems.push(`${variable.name}: ConfigMap ${configMapRef.name} has no key ${configMapRef.key}`);
      values.set(variable.name, value);
    } else {
      values.set(variable.name, expand(variable.name, variable.value));
    }
  }
  return { values, problems };
}

const definedValues = (env: ResolvedEnv): Map<string, string> =>
  new Map([...env.values].filter((entry): entry is [string, string] => entry[1] !== undefined));

// ---------------------------------------------------------------------------------------------
// Tests

const apps = servingApps();
const specs = new Map<string, ConfigSpec>();
let validation: Array<{ source: string; kind: string; name: string; errors: string[] }> = [];
let scratch = '';

beforeAll(async () => {
  for (const app of apps) specs.set(app, await configSpecOf(app));
  scratch = mkdtempSync(join(tmpdir(), 'k8s-spec-'));
  const files = [
    ...resourceFiles(BASE),
    SECRET_TEMPLATE,
    ...OVERLAYS.flatMap((overlay) => resourceFiles(join(K8S, 'overlays', overlay))),
    ...readdirSync(join(K8S, 'components')).flatMap((component) => resourceFiles(join(K8S, 'components', component))),
  ];
  for (const [overlay, result] of rendered) {
    const file = join(scratch, `${overlay}.rendered.yaml`);
    writeFileSync(file, result.stdout);
    files.push(file);
  }
  const run = spawnSync(process.execPath, [join(root, 'tools/k8s-validate.mjs'), ...files], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (!run.stdout) throw new Error(`tools/k8s-validate.mjs failed: ${run.stderr}`);
  validation = (JSON.parse(run.stdout) as { objects: typeof validation }).objects;
}, 120_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const invalid = (source: string) =>
  validation
    .filter((o) => o.source === source && o.errors.length > 0)
    .map((o) => `${relative(root, o.source)} ${o.kind}/${o.name}: ${o.errors.join('; ')}`);

describe('Kubernetes manifests: schemas', () => {
  it('validates every object of the base against the Kubernetes API schemas', () => {
    const files = resourceFiles(BASE);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(validation.filter((o) => o.source === file)).toHaveLength(readObjects(file).length);
      expect(invalid(file)).toEqual([]);
    }
  });

  it('lists every manifest of the base in its kustomization', () => {
    const listed = resourceFiles(BASE).map((file) => relative(BASE, file));
    const present = readdirSync(BASE, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.yaml') && !f.endsWith('kustomization.yaml'),
    );
    expect(listed.sort()).toEqual(present.sort());
  });

  it("validates the Secret template and the overlays' and components' own objects", () => {
    const files = [
      SECRET_TEMPLATE,
      ...OVERLAYS.flatMap((overlay) => resourceFiles(join(K8S, 'overlays', overlay))),
      ...readdirSync(join(K8S, 'components')).flatMap((component) => resourceFiles(join(K8S, 'components', component))),
    ];
    for (const file of files) expect(invalid(file)).toEqual([]);
  });

  itWithKubectl.each(OVERLAYS)('renders overlay %s with kubectl kustomize into valid objects', (overlay) => {
    const result = rendered.get(overlay)!;
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const file = join(scratch, `${overlay}.rendered.yaml`);
    expect(validation.filter((o) => o.source === file).length).toBeGreaterThan(baseObjects.length - 1);
    expect(invalid(file)).toEqual([]);
  });
});

describe('Kubernetes manifests: overlays', () => {
  const baseImages = new Set(
    [...ofKind<IDeployment>(baseObjects, 'Deployment'), ...ofKind<IJob>(baseObjects, 'Job')].flatMap((o) =>
      podSpec(o).containers.map((c) => (c.image ?? '').split(':')[0]),
    ),
  );
  const autoscaledTargets = new Set([
    ...ofKind<IHorizontalPodAutoscaler>(baseObjects, 'HorizontalPodAutoscaler').map((h) => h.spec?.scaleTargetRef.name),
    ...ofKind<IScaledObject>(baseObjects, 'ScaledObject').map((o) => o.spec.scaleTargetRef.name),
  ]);
  const referencedSecrets = (objects: K8sObject[]): Map<string, Set<string>> => {
    const refs = new Map<string, Set<string>>();
    const add = (name: string | undefined, key?: string) => {
      if (!name) return;
      const keys = refs.get(name) ?? new Set<string>();
      if (key) keys.add(key);
      refs.set(name, keys);
    };
    for (const workload of [...ofKind<IDeployment>(objects, 'Deployment'), ...ofKind<IJob>(objects, 'Job')]) {
      const spec = podSpec(workload);
      for (const volume of spec.volumes ?? []) add(volume.secret?.secretName);
      for (const container of spec.containers) {
        for (const source of container.envFrom ?? []) add(source.secretRef?.name);
        for (const variable of container.env ?? []) {
          const ref = variable.valueFrom?.secretKeyRef;
          add(ref?.name, ref?.optional ? undefined : ref?.key);
        }
      }
    }
    return refs;
  };

  it('has a Secret template with every Secret and key the base references, and nothing real in it', () => {
    for (const [name, keys] of referencedSecrets(baseObjects)) {
      const template = named(templateSecrets, name)[0];
      expect(template ? name : `missing Secret ${name}`).toBe(name);
      const templateKeys = Object.keys(template?.stringData ?? {});
      expect(templateKeys).toEqual(expect.arrayContaining([...keys]));
      for (const key of templateKeys) expect(template?.stringData?.[key]).toContain('change-me');
    }
  });

  describe.each(OVERLAYS)('overlay %s', (overlay) => {
    const dir = join(K8S, 'overlays', overlay);
    const kustomization = readKustomization(dir);
    const componentFiles = (kustomization.components ?? []).flatMap((component) => resourceFiles(join(dir, component)));
    const known = [...baseObjects, ...resourceFiles(dir).flatMap(readObjects), ...componentFiles.flatMap(readObjects)];
    const find = (kind: string | undefined, name: string | undefined) => known.filter((o) => o.kind === kind && o.metadata.name === name);

    it('builds on the base and names only files and directories that exist', () => {
      expect(kustomization.resources).toContain('../../base');
      for (const entry of kustomization.resources ?? []) {
        const path = join(dir, entry);
        expect(isDirectory(path) ? existsSync(join(path, 'kustomization.yaml')) : existsSync(path)).toBe(true);
      }
      for (const entry of kustomization.components ?? []) expect(readKustomization(join(dir, entry)).kind).toBe('Component');
      for (const { path } of kustomization.patches ?? []) if (path) expect(existsSync(join(dir, path))).toBe(true);
      for (const generator of [...(kustomization.secretGenerator ?? []), ...(kustomization.configMapGenerator ?? [])]) {
        for (const file of [...(generator.files ?? []), ...(generator.envs ?? [])])
          expect(existsSync(join(dir, file.split('=').pop()!))).toBe(true);
      }
    });

    it('patches only objects the base defines, at paths they have', () => {
      for (const patch of kustomization.patches ?? []) {
        const documents = patch.path ? readObjects(join(dir, patch.path)) : [];
        if (patch.target) {
          const [target] = find(patch.target.kind, patch.target.name);
          expect(target ? `${patch.target.kind}/${patch.target.name}` : `no ${patch.target.kind}/${patch.target.name} to patch`).toBe(
            `${patch.target.kind}/${patch.target.name}`,
          );
          // An inline JSON 6902 patch: the paths it replaces or removes must exist in the target.
          const operations = (patch.patch ? parse(patch.patch) : []) as Array<{ op: string; path: string }>;
          for (const { op, path } of operations.filter((o) => o.op === 'replace' || o.op === 'remove')) {
            const found = path
              .split('/')
              .slice(1)
              .reduce<unknown>(
                (node, key) =>
                  node !== null && typeof node === 'object'
                    ? (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')]
                    : undefined,
                target,
              );
            expect(found === undefined ? `${op} ${path}: nothing there` : path).toBe(path);
          }
        } else {
          expect(documents.length).toBeGreaterThan(0);
          for (const document of documents)
            expect(
              find(document.kind, document.metadata.name).length
                ? document.metadata.name
                : `no ${document.kind}/${document.metadata.name} to patch`,
            ).toBe(document.metadata.name);
        }
      }
    });

    it('sets images and replica counts of what the base runs (not of autoscaled Deployments)', () => {
      for (const { name } of kustomization.images ?? []) expect(baseImages).toContain(name);
      for (const { name, count } of kustomization.replicas ?? []) {
        expect(named(ofKind<IDeployment>(baseObjects, 'Deployment'), name)).toHaveLength(1);
        expect(autoscaledTargets).not.toContain(name);
        // An entry without a count sets 0 replicas: the app would not run.
        expect([name, count]).toEqual([name, expect.any(Number)]);
        expect(count).toBeGreaterThan(0);
      }
      // An entry without a tag or digest changes nothing, and the base's untagged image is `latest`.
      for (const image of kustomization.images ?? [])
        expect([image.name, Boolean(image.newTag ?? image.digest)]).toEqual([image.name, true]);
    });

    it('generates only Secrets the base references, with the keys of the template', () => {
      const references = referencedSecrets(baseObjects);
      for (const generator of kustomization.secretGenerator ?? []) {
        expect(references.has(generator.name) ? generator.name : `unreferenced Secret ${generator.name}`).toBe(generator.name);
        const template = named(templateSecrets, generator.name)[0];
        const literalKeys = (generator.literals ?? []).map((literal) => literal.split('=')[0]!);
        if (literalKeys.length > 0) expect(literalKeys.sort()).toEqual(Object.keys(template?.stringData ?? {}).sort());
      }
    });
  });
});

describe.each(variants.map((v) => [v.name, v] as const))('Kubernetes manifests: apps, %s', (_name, variant) => {
  const deployments = ofKind<IDeployment>(variant.objects, 'Deployment');
  const products = deployments.filter((d) => podLabels(d)[PRODUCT_LABEL] === PRODUCT);
  const jobs = ofKind<IJob>(variant.objects, 'Job');

  it('runs exactly the serving apps of apps/, one Deployment each', () => {
    expect(products.map((d) => d.metadata?.name).sort()).toEqual(apps);
  });

  it.each(apps)(
    "%s: listens on its config's PORT (`http`) and INTERNAL_PORT (`internal`), and is probed on /healthz (liveness) and /readyz (readiness) on `http`",
    (app) => {
      const deployment = deploymentOf(variant, app);
      const container = containerOf(deployment, app);
      const port = defaultPort(specs.get(app)!);
      const internal = defaultInternalPort(specs.get(app)!);
      expect(container.ports?.map((p) => [p.name, p.containerPort])).toEqual([
        ['http', port],
        ['internal', internal],
      ]);
      // Both set explicitly, so that the ports above are the ones the app listens on.
      const env = definedValues(resolveEnv(variant, container));
      expect([env.get('PORT'), env.get('INTERNAL_PORT')]).toEqual([String(port), String(internal)]);
      // /metrics answers on the internal listener only.
      const annotations = deployment.spec?.template.metadata?.annotations ?? {};
      if (annotations['prometheus.io/port']) expect(annotations['prometheus.io/port']).toBe(String(internal));
      expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
      expect(containerPort(container, container.livenessProbe?.httpGet?.port)).toBe(port);
      expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(containerPort(container, container.readinessProbe?.httpGet?.port)).toBe(port);
      if (container.startupProbe) {
        expect(container.startupProbe.httpGet?.path).toBe('/healthz');
        expect(containerPort(container, container.startupProbe.httpGet?.port)).toBe(port);
      }
    },
  );

  it.each(apps)('%s: gets every setting it needs in production, each one a value it accepts', (app) => {
    const spec = specs.get(app)!;
    const container = containerOf(deploymentOf(variant, app), app);
    const env = resolveEnv(variant, container);
    expect(env.problems).toEqual([]);
    expect(mustBeSet(spec).filter((name) => !env.values.has(name))).toEqual([]);
    const mounts = (container.volumeMounts ?? []).map((m) => m.mountPath);
    const refused: string[] = [];
    const nodeEnv = definedValues(env).get('NODE_ENV') ?? 'development';
    for (const [name, value] of definedValues(env)) {
      // A path into a mounted volume holds what the cluster mounts there, not something to check here.
      if (value.startsWith('/')) {
        expect(mounts.some((mount) => value === mount || value.startsWith(`${mount}/`)) ? value : `${name}=${value} is not mounted`).toBe(
          value,
        );
        continue;
      }
      const reason = refusal(spec, name, value, nodeEnv);
      if (reason) refused.push(reason);
    }
    expect(refused).toEqual([]);
  });

  it.each(apps)("%s: points every service address at a Service's `internal` port (the other app's internal listener)", (app) => {
    const env = definedValues(resolveEnv(variant, containerOf(deploymentOf(variant, app), app)));
    const services = ofKind<IService>(variant.objects, 'Service');
    const addresses = [...env].filter(([name]) => name.endsWith('_URL') && name !== 'APP_URL');
    for (const [name, value] of addresses) {
      const address = /^https?:\/\/([a-z0-9-]+):(\d+)/.exec(value);
      const service = address && named(services, address[1]!)[0];
      if (!address || !service) continue;
      const internal = service.spec?.ports?.find((p) => p.name === 'internal')?.port;
      expect(`${name} → ${address[2]}`).toBe(`${name} → ${internal}`);
    }
    // Every app's address this app is given is a Service of the product.
    for (const other of apps) {
      const value = env.get(`${other.toUpperCase().replaceAll('-', '_')}_URL`);
      if (value !== undefined) expect(value).toBe(`http://${other}:${defaultInternalPort(specs.get(other)!)}`);
    }
  });

  it.each(apps)('%s: in production, takes no secret from the manifests (they are published in this repository)', (app) => {
    const container = containerOf(deploymentOf(variant, app), app);
    const env = resolveEnv(variant, container);
    if (definedValues(env).get('NODE_ENV') !== 'production') return;
    const own = new Set(ofKind<ISecret>(variant.objects, 'Secret').map((s) => s.metadata?.name));
    const fromManifests = [
      ...(container.env ?? []).filter((e) => own.has(e.valueFrom?.secretKeyRef?.name)).map((e) => e.name),
      ...(container.envFrom ?? []).filter((e) => own.has(e.secretRef?.name)).map((e) => `envFrom ${e.secretRef?.name}`),
    ];
    expect(fromManifests).toEqual([]);
  });

  it.each(apps)(
    '%s: drains within terminationGracePeriodSeconds (readiness delay, own work, listener deadline, broker close, one after another)',
    async (app) => {
      const deployment = deploymentOf(variant, app);
      const env = definedValues(resolveEnv(variant, containerOf(deployment, app)));
      const drain = await drainMs(app, specs.get(app)!, env);
      expect(drain.delay).toBeGreaterThan(0);
      const total = drain.delay + drain.background + drain.listener + drain.close;
      expect((podSpec(deployment).terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(total);
    },
  );

  it('runs every pod (apps and the migration Job) as non-root, read-only, without privileges, with resources', () => {
    const workloads = [...products, ...jobs];
    expect(jobs.length).toBeGreaterThan(0);
    for (const workload of workloads) {
      const spec = podSpec(workload);
      const where = `${workload.metadata?.name}`;
      expect([
        where,
        spec.securityContext?.runAsNonRoot,
        spec.securityContext?.seccompProfile?.type,
        spec.automountServiceAccountToken,
      ]).toEqual([where, true, 'RuntimeDefault', false]);
      expect(spec.securityContext?.runAsUser ?? 1).toBeGreaterThan(0);
      const tmpVolumes = new Set((spec.volumes ?? []).filter((v) => v.emptyDir).map((v) => v.name));
      for (const container of spec.containers) {
        const security = container.securityContext;
        expect([where, security?.readOnlyRootFilesystem, security?.allowPrivilegeEscalation, security?.capabilities?.drop]).toEqual([
          where,
          true,
          false,
          ['ALL'],
        ]);
        expect(container.resources?.requests).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }));
        expect(container.resources?.limits).toEqual(expect.objectContaining({ memory: expect.anything() }));
        expect(container.volumeMounts?.some((m) => m.mountPath === '/tmp' && tmpVolumes.has(m.name))).toBe(true);
      }
    }
  });

  it.each(apps)('%s: has a Service on its port and a PodDisruptionBudget', (app) => {
    const deployment = deploymentOf(variant, app);
    const container = containerOf(deployment, app);
    const port = defaultPort(specs.get(app)!);
    expect(matches(deployment.spec?.selector, podLabels(deployment))).toBe(true);
    const [service] = named(ofKind<IService>(variant.objects, 'Service'), app);
    expect(service?.spec?.selector && Object.entries(service.spec.selector).every(([k, v]) => podLabels(deployment)[k] === v)).toBe(true);
    const internal = defaultInternalPort(specs.get(app)!);
    expect(service?.spec?.ports?.map((p) => [p.name, p.port, containerPort(container, p.targetPort)])).toEqual([
      ['http', port, port],
      ['internal', internal, internal],
    ]);
    // Inside the cluster only: the Ingress is the one way in (and it targets `http`).
    expect([app, service?.spec?.type ?? 'ClusterIP']).toEqual([app, 'ClusterIP']);
    const budgets = ofKind<IPodDisruptionBudget>(variant.objects, 'PodDisruptionBudget').filter((b) =>
      matches(b.spec?.selector, podLabels(deployment)),
    );
    expect(budgets).toHaveLength(1);
  });

  it('autoscales the gateway on CPU and the consumers on their backlog (KEDA), each with a behavior, and leaves their replica count to the autoscaler', () => {
    const autoscalers = ofKind<IHorizontalPodAutoscaler>(variant.objects, 'HorizontalPodAutoscaler');
    const scaledObjects = ofKind<IScaledObject>(variant.objects, 'ScaledObject');
    const owners = [
      ...autoscalers.map((h) => [h.spec?.scaleTargetRef.name, 'HorizontalPodAutoscaler']),
      ...scaledObjects.map((o) => [o.spec.scaleTargetRef.name, 'ScaledObject']),
    ];
    expect(Object.fromEntries(owners)).toEqual(AUTOSCALED);
    expect(owners).toHaveLength(Object.keys(AUTOSCALED).length);
    for (const app of Object.keys(AUTOSCALED)) expect([app, deploymentOf(variant, app).spec?.replicas]).toEqual([app, undefined]);
    for (const autoscaler of autoscalers) {
      expect(autoscaler.spec?.maxReplicas).toBeGreaterThanOrEqual(autoscaler.spec?.minReplicas ?? 1);
      expect(
        autoscaler.spec?.behavior?.scaleUp && autoscaler.spec.behavior.scaleDown
          ? autoscaler.metadata?.name
          : `${autoscaler.metadata?.name} has no behavior`,
      ).toBe(autoscaler.metadata?.name);
    }
    for (const scaled of scaledObjects) {
      const app = scaled.spec.scaleTargetRef.name;
      expect(scaled.spec.maxReplicaCount).toBeGreaterThanOrEqual(scaled.spec.minReplicaCount ?? 1);
      const behavior = scaled.spec.advanced?.horizontalPodAutoscalerConfig?.behavior;
      expect(behavior?.scaleUp && behavior.scaleDown ? app : `${app} has no behavior`).toBe(app);
      // On its queue's length, through the container's own broker URL.
      const queueTrigger = scaled.spec.triggers.find((t) => t.type === 'rabbitmq');
      expect([app, queueTrigger?.metadata['queueName'], queueTrigger?.metadata['mode'], queueTrigger?.metadata['hostFromEnv']]).toEqual([
        app,
        SCALED_QUEUES[app],
        'QueueLength',
        'RABBITMQ_URL',
      ]);
      const env = resolveEnv(variant, containerOf(deploymentOf(variant, app), app)).values;
      for (const trigger of scaled.spec.triggers) {
        for (const variable of [trigger.metadata['hostFromEnv'], trigger.metadata['connectionFromEnv']].filter(
          (v): v is string => v !== undefined,
        ))
          expect([app, variable, env.has(variable)]).toEqual([app, variable, true]);
      }
    }
    // The dispatcher also on its deliveries due: the query of the webhook_deliveries_due gauge.
    const dispatcher = scaledObjects.find((o) => o.spec.scaleTargetRef.name === 'webhook-dispatcher');
    const due = dispatcher?.spec.triggers.find((t) => t.type === 'postgresql');
    expect(due?.metadata['query']).toMatch(
      /FROM webhooks\.deliveries WHERE status = 'pending' AND next_attempt_at <= now\(\)\s+AND \(locked_until IS NULL OR locked_until <= now\(\)\)/,
    );
    expect(Number(due?.metadata['targetQueryValue'])).toBeGreaterThan(0);
  });

  it.each(apps)('%s: sizes its heap from its memory limit (MEMORY_LIMIT_MIB from the limit, in MiB)', (app) => {
    const container = containerOf(deploymentOf(variant, app), app);
    const variable = container.env?.find((e) => e.name === 'MEMORY_LIMIT_MIB');
    expect(variable?.valueFrom?.resourceFieldRef).toEqual({ containerName: app, resource: 'limits.memory', divisor: '1Mi' });
  });

  it('exposes only the public paths through an Ingress: /api/v1 and /mcp to the gateway, /chat/ to the chat', () => {
    const ingresses = ofKind<IIngress>(variant.objects, 'Ingress');
    expect(ingresses).toHaveLength(1);
    const paths = ingresses.flatMap((i) => i.spec?.rules ?? []).flatMap((rule) => rule.http?.paths ?? []);
    expect(paths.map((path) => path.path).sort()).toEqual(Object.keys(PUBLIC_PATHS).sort());
    for (const path of paths) expect([path.path, path.backend.service?.name]).toEqual([path.path, PUBLIC_PATHS[path.path as string]]);
    // Only the public listener: never the `internal` port (/internal/… routes, /metrics), by name or number.
    for (const path of paths) expect([path.path, path.backend.service?.port]).toEqual([path.path, { name: 'http' }]);
    const internalPorts = apps.map((app) => defaultInternalPort(specs.get(app)!));
    const targets = paths.map((path) => path.backend.service?.port);
    expect(targets.filter((port) => port?.name === 'internal' || internalPorts.includes(port?.number ?? -1))).toEqual([]);
  });

  it("lets the ingress controller reach only the `http` port of the public apps, the product's pods each other's `internal` port, and nobody else in", () => {
    const policies = ofKind<INetworkPolicy>(variant.objects, 'NetworkPolicy');
    const controller: Source = { pod: { 'app.kubernetes.io/name': 'ingress-nginx' }, namespace: 'ingress-nginx' };
    const intruders: Source[] = [
      { pod: { 'app.kubernetes.io/name': 'intruder' } },
      { pod: { 'app.kubernetes.io/name': 'intruder' }, namespace: 'elsewhere' },
    ];
    const publicApps = new Set(Object.values(PUBLIC_PATHS));
    for (const app of apps) {
      const labels = podLabels(deploymentOf(variant, app));
      const http = defaultPort(specs.get(app)!);
      const internal = defaultInternalPort(specs.get(app)!);
      const reach = (source: Source) => [
        ingressAllowed(policies, labels, source, http, 'http'),
        ingressAllowed(policies, labels, source, internal, 'internal'),
      ];
      expect([app, 'ingress controller', ...reach(controller)]).toEqual([app, 'ingress controller', publicApps.has(app), false]);
      for (const other of apps.filter((a) => a !== app)) {
        const caller: Source = { pod: podLabels(deploymentOf(variant, other)) };
        expect([app, other, ingressAllowed(policies, labels, caller, internal, 'internal')]).toEqual([app, other, true]);
      }
      for (const intruder of intruders)
        expect([app, intruder.namespace, ...reach(intruder)]).toEqual([app, intruder.namespace, false, false]);
    }
  });

  it("lets the apps accept traffic only from the product's pods and, the public ones, from the ingress controller", () => {
    const policies = ofKind<INetworkPolicy>(variant.objects, 'NetworkPolicy');
    const pods = [...deployments, ...jobs].map(podLabels);
    const productPod = (labels: Record<string, string>) => labels[PRODUCT_LABEL] === PRODUCT;
    const allowedPeers = (labels: Record<string, string>): Array<Peer | 'anyone'> =>
      policies
        .filter((p) => matches(p.spec?.podSelector, labels) && (p.spec?.policyTypes ?? ['Ingress']).includes('Ingress'))
        .flatMap((p) => p.spec?.ingress ?? [])
        .flatMap((rule): Array<Peer | 'anyone'> => (rule.from && rule.from.length > 0 ? rule.from : ['anyone']));
    const gatewayPod = podLabels(deploymentOf(variant, PUBLIC_APP));
    for (const app of apps) {
      const labels = podLabels(deploymentOf(variant, app));
      const isolated = policies.some(
        (p) => matches(p.spec?.podSelector, labels) && (p.spec?.policyTypes ?? ['Ingress']).includes('Ingress'),
      );
      expect(isolated ? app : `${app} is selected by no NetworkPolicy`).toBe(app);
      const ingressPeer = (peer: Peer | 'anyone') =>
        peer !== 'anyone' && !!peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] && !peer.podSelector && !peer.ipBlock;
      // An app behind an Ingress path (the chat) also admits the ingress controller's namespace.
      // Prometheus in namespace `monitoring` scrapes every app (components/metrics-scrape): not a caller of the API.
      const scraper = (peer: Peer | 'anyone') =>
        peer !== 'anyone' &&
        peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring' &&
        !peer.podSelector &&
        !peer.ipBlock;
      const peers = allowedPeers(labels)
        .filter((peer) => !scraper(peer))
        .filter((peer) => app === PUBLIC_APP || !Object.values(PUBLIC_PATHS).includes(app) || !ingressPeer(peer));
      if (Object.values(PUBLIC_PATHS).includes(app) && app !== PUBLIC_APP)
        expect([app, allowedPeers(labels).some(ingressPeer)]).toEqual([app, true]);
      if (app === PUBLIC_APP) expect([app, peers.some(ingressPeer)]).toEqual([app, true]);
      // Besides the ingress controller's namespace (by name, the public apps only): pods of the product.
      for (const peer of peers.filter((p) => app !== PUBLIC_APP || !ingressPeer(p))) {
        // Pods of this namespace (no namespaceSelector, no ipBlock) and, of those, the product's only.
        const sameNamespace = peer !== 'anyone' && !peer.namespaceSelector && !peer.ipBlock && peer.podSelector;
        const onlyProduct =
          sameNamespace &&
          pods.filter((pod) => matches(peer.podSelector, pod)).every(productPod) &&
          !matches(peer.podSelector, { 'app.kubernetes.io/name': 'intruder' });
        expect(onlyProduct ? app : `${app} admits ${JSON.stringify(peer)}`).toBe(app);
      }
      const admits = (pod: Record<string, string>) => peers.some((peer) => peer !== 'anyone' && matches(peer.podSelector, pod));
      expect(admits(gatewayPod)).toBe(true);
      for (const other of apps.filter((a) => a !== app && a !== PUBLIC_APP))
        expect([other, admits(podLabels(deploymentOf(variant, other)))]).toEqual([other, true]);
    }
  });

  it('lets every pod reach DNS and the data services only, the apps each other, and the dispatcher public https addresses alone', () => {
    const policies = ofKind<INetworkPolicy>(variant.objects, 'NetworkPolicy');
    const DNS: Destination = { pod: { 'k8s-app': 'kube-dns' }, namespace: 'kube-system', port: 53, protocol: 'UDP' };
    const data: Destination[] = [5432, 5672, 6379].map((port) => ({ ip: '10.20.30.40', port }));
    const publicHttps: Destination[] = [
      { ip: '93.184.216.34', port: 443 },
      { ip: '2606:2800:220:1:248:1893:25c8:1946', port: 443 },
    ];
    const forbiddenForEveryone: Destination[] = [
      ...['10.0.0.5', '172.16.3.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '127.0.0.1', 'fd00::1', 'fe80::1', '::1'].map((ip) => ({
        ip,
        port: 443,
      })),
      { ip: '93.184.216.34', port: 80 },
      { ip: '93.184.216.34', port: 22 },
      { pod: { 'app.kubernetes.io/name': 'intruder' }, namespace: 'elsewhere', port: 8080, portName: 'http' },
    ];
    const service = (app: string): Destination => ({
      pod: podLabels(deploymentOf(variant, app)),
      port: defaultInternalPort(specs.get(app)!),
      portName: 'internal',
    });
    const verdicts = (source: Record<string, string>, destinations: Destination[]) =>
      destinations.map((d) => `${JSON.stringify(d)}: ${egressAllowed(policies, source, d)}`);
    const all = (destinations: Destination[], allowed: boolean) => destinations.map((d) => `${JSON.stringify(d)}: ${allowed}`);
    for (const app of apps) {
      const labels = podLabels(deploymentOf(variant, app));
      expect(verdicts(labels, [DNS, ...data, ...apps.filter((a) => a !== app).map(service)])).toEqual(
        all([DNS, ...data, ...apps.filter((a) => a !== app).map(service)], true),
      );
      expect(verdicts(labels, forbiddenForEveryone)).toEqual(all(forbiddenForEveryone, false));
      expect(verdicts(labels, publicHttps)).toEqual(all(publicHttps, app === 'webhook-dispatcher'));
    }
    for (const job of jobs) {
      const labels = podLabels(job);
      expect(verdicts(labels, [DNS, data[0]!])).toEqual(all([DNS, data[0]!], true));
      expect(verdicts(labels, [...publicHttps, service(PUBLIC_APP), ...forbiddenForEveryone])).toEqual(
        all([...publicHttps, service(PUBLIC_APP), ...forbiddenForEveryone], false),
      );
    }
  });

  it('has a migration Job that runs the migrate image against the database', () => {
    expect(jobs).toHaveLength(1);
    const [container] = podSpec(jobs[0]!).containers;
    expect(container?.image).toMatch(/(^|\/)migrate(:[^/@]+)?(@sha256:[0-9a-f]{64})?$/);
    expect(container?.command).toBeUndefined();
    const env = resolveEnv(variant, container!);
    expect(env.problems).toEqual([]);
    expect(env.values.has('DATABASE_URL')).toBe(true);
    expect(podSpec(jobs[0]!).restartPolicy).toBe('Never');
  });
});

describe.each([...rendered].map(([overlay]) => [overlay] as const))('Kubernetes manifests: overlay %s as rendered', (overlay) => {
  const variant = variants.find((v) => v.name === `overlay ${overlay} (rendered)`)!;
  const deployments = ofKind<IDeployment>(variant.objects, 'Deployment').filter((d) => podLabels(d)[PRODUCT_LABEL] === PRODUCT);

  it('stays within the PostgreSQL connection budget its namespace declares, every app at its maximum replicas', () => {
    const [namespace] = ofKind<{ metadata: { annotations?: Record<string, string> } }>(variant.objects, 'Namespace');
    const budget = Number(namespace?.metadata.annotations?.[CONNECTION_BUDGET]);
    expect(budget).toBeGreaterThan(0);
    const maxReplicas = (app: string, deployment: IDeployment): number =>
      ofKind<IHorizontalPodAutoscaler>(variant.objects, 'HorizontalPodAutoscaler').find((h) => h.spec?.scaleTargetRef.name === app)?.spec
        ?.maxReplicas ??
      ofKind<IScaledObject>(variant.objects, 'ScaledObject').find((o) => o.spec.scaleTargetRef.name === app)?.spec.maxReplicaCount ??
      deployment.spec?.replicas ??
      1;
    const pool = (container: IContainer, spec: ConfigSpec | undefined): number =>
      Number(effective(spec ?? {}, definedValues(resolveEnv(variant, container)), 'DATABASE_POOL_SIZE') ?? 10);
    const perApp = deployments.map((d) => {
      const app = d.metadata!.name!;
      return { app, connections: maxReplicas(app, d) * (pool(containerOf(d, app), specs.get(app)) + CONNECTIONS_BESIDE_POOL) };
    });
    const job = ofKind<IJob>(variant.objects, 'Job').reduce((sum, j) => sum + pool(podSpec(j).containers[0]!, specs.get(apps[0]!)), 0);
    const total = perApp.reduce((sum, a) => sum + a.connections, job);
    expect({ total, perApp, budget, within: total <= budget }).toEqual({ total, perApp, budget, within: true });
  });

  it('rolls the pods when the shared settings change: svc-config is generated, its name carries a content hash', () => {
    const maps = ofKind<IConfigMap>(variant.objects, 'ConfigMap').filter((m) => m.metadata?.name?.startsWith('svc-config'));
    expect(maps.map((m) => m.metadata?.name)).toEqual([expect.stringMatching(/^svc-config-[a-z0-9]{10}$/)]);
    for (const d of deployments) {
      const refs = podSpec(d)
        .containers.flatMap((c) => c.envFrom ?? [])
        .filter((e) => e.configMapRef)
        .map((e) => e.configMapRef?.name);
      expect(refs).toEqual([maps[0]!.metadata!.name]);
    }
  });

  if (overlay === 'prod') {
    it('runs images by digest, migrates only in the Job, and includes the monitoring component', () => {
      const images = [...deployments, ...ofKind<IJob>(variant.objects, 'Job')].flatMap((w) =>
        podSpec(w).containers.map((c) => c.image ?? ''),
      );
      for (const image of images) expect(image).toMatch(/^[^:@]+(:\d+)?[^:@]*@sha256:[0-9a-f]{64}$/);
      const config = ofKind<IConfigMap>(variant.objects, 'ConfigMap').find((m) => m.metadata?.name?.startsWith('svc-config'));
      expect(config?.data?.['MIGRATE_ON_START']).toBe('false');
      expect(ofKind<IPodMonitor>(variant.objects, 'PodMonitor')).toHaveLength(1);
      expect(ofKind<IPrometheusRule>(variant.objects, 'PrometheusRule')).toHaveLength(1);
      const dashboards = ofKind<IConfigMap>(variant.objects, 'ConfigMap').filter((m) => m.metadata?.labels?.['grafana_dashboard'] === '1');
      expect(dashboards).toHaveLength(1);
      // The default-deny ingress policy admits the monitoring namespace on every app's `internal`
      // port (where /metrics is served), and not on its public one.
      const policies = ofKind<INetworkPolicy>(variant.objects, 'NetworkPolicy');
      const prometheus: Source = { pod: { 'app.kubernetes.io/name': 'prometheus' }, namespace: 'monitoring' };
      for (const d of deployments) {
        const app = d.metadata!.name!;
        const scraped = [
          ingressAllowed(policies, podLabels(d), prometheus, defaultInternalPort(specs.get(app)!), 'internal'),
          ingressAllowed(policies, podLabels(d), prometheus, defaultPort(specs.get(app)!), 'http'),
        ];
        expect([app, ...scraped]).toEqual([app, true, false]);
      }
      // The PodMonitor selects every app's pods, on the port they serve /metrics on.
      const [monitor] = ofKind<IPodMonitor>(variant.objects, 'PodMonitor');
      for (const d of deployments)
        expect([d.metadata?.name, matches(monitor!.spec.selector as Selector, podLabels(d))]).toEqual([d.metadata?.name, true]);
      expect(monitor!.spec.podMetricsEndpoints?.map((e) => [e.port, e.path])).toEqual([['internal', '/metrics']]);
    });
  }
});

describe('monitoring: alert rules (promtool runs them in tools/alert-rules.spec.ts)', () => {
  const dir = join(K8S, 'components', 'monitoring');
  const rules = ofKind<IPrometheusRule>(readObjects(join(dir, 'prometheus-rules.yaml')), 'PrometheusRule').flatMap(
    (r) => r.spec.groups?.flatMap((g) => g.rules ?? []) ?? [],
  );
  const anchors = headingAnchors(readFileSync(join(root, 'docs/operations.md'), 'utf8'));

  it('gives every alert a severity, a summary and a runbook: its paragraph in docs/operations.md', () => {
    for (const rule of rules) {
      expect([rule.alert, rule.labels?.['severity']]).toEqual([rule.alert, expect.stringMatching(/^(critical|warning)$/)]);
      expect(rule.annotations?.['summary']).toBeTruthy();
      const [page, anchor] = (rule.annotations?.['runbook_url'] ?? '').split('#');
      expect([rule.alert, page]).toEqual([rule.alert, 'https://github.com/svc-chat/svc-chat/blob/main/docs/operations.md']);
      expect([rule.alert, anchor]).toEqual([rule.alert, rule.alert!.toLowerCase()]);
      expect([rule.alert, anchors.has(anchor!)]).toEqual([rule.alert, true]);
    }
  });

  it('covers what an operator must hear about: error budget, latency, outbox, parked, webhook backlog, autoscaler at max, restarts, OOM', () => {
    const named = rules.flatMap((r) => metricNames(String(r.expr)));
    for (const metric of [
      'http_request_duration_seconds_count',
      'http_request_duration_seconds_bucket',
      'outbox_oldest_message_age_seconds',
      'consumer_parked_messages',
      'webhook_deliveries_due',
      'kube_horizontalpodautoscaler_spec_max_replicas',
      'kube_pod_container_status_restarts_total',
      'kube_pod_container_status_last_terminated_reason',
    ]) {
      expect(named).toContain(metric);
    }
  });
});

(kubectl ? describe : describe.skip)('Kubernetes manifests: components/data (added to overlay prod, rendered)', () => {
  const variant = variants.find((v) => v.name === `overlay ${PROD_WITH_DATA} (rendered)`)!;
  const objects = variant?.objects ?? [];
  const namespace = readKustomization(join(K8S, 'overlays', 'prod')).namespace!;
  const [cluster] = ofKind<ICluster>(objects, 'Cluster');
  const [rabbitmq] = ofKind<IRabbitmqCluster>(objects, 'RabbitmqCluster');
  const redis = named(ofKind<IStatefulSet>(objects, 'StatefulSet'), 'svc-redis')[0];
  const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
  const workloads = [...ofKind<IDeployment>(objects, 'Deployment'), ...ofKind<IJob>(objects, 'Job')].filter(
    (w) => podLabels(w)[PRODUCT_LABEL] === PRODUCT,
  );
  const mainContainer = (w: IDeployment | IJob) => podSpec(w).containers[0]!;
  /**
   * The labels the operators give the pods: CloudNativePG `cnpg.io/cluster`, the RabbitMQ operator
   * `app.kubernetes.io/name` = the cluster's name.
   */
  const postgresPod = { 'cnpg.io/cluster': cluster?.metadata?.name ?? '', ...(cluster?.spec.inheritedMetadata?.labels ?? {}) };
  const rabbitmqPod = {
    'app.kubernetes.io/name': rabbitmq?.metadata.name ?? '',
    'app.kubernetes.io/component': 'rabbitmq',
    'app.kubernetes.io/part-of': 'rabbitmq',
  };
  const redisPod = redis?.spec?.template.metadata?.labels ?? {};
  const uses = (w: IDeployment | IJob, variable: string) => (mainContainer(w).env ?? []).some((e) => e.name === variable);

  it('renders into valid objects; overlay prod alone has none of them', () => {
    const result = rendered.get(PROD_WITH_DATA)!;
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(validation.filter((o) => o.source === join(scratch, `${PROD_WITH_DATA}.rendered.yaml`)).length).toBe(objects.length);
    expect(invalid(join(scratch, `${PROD_WITH_DATA}.rendered.yaml`))).toEqual([]);
    const prod = variants.find((v) => v.name === 'overlay prod (rendered)')!;
    expect(prod.objects.filter((o) => ['Cluster', 'RabbitmqCluster', 'StatefulSet'].includes(o.kind))).toEqual([]);
  });

  it('runs PostgreSQL on three instances (database and owner `svc`, no pooler but a session-mode one), RabbitMQ on three nodes, Redis on three pods with a sentinel each, each with a disruption budget', () => {
    expect(cluster?.spec.instances).toBe(3);
    expect(cluster?.spec.bootstrap?.initdb).toMatchObject({ database: 'svc', owner: 'svc' });
    // LISTEN/NOTIFY and session advisory locks do not survive transaction pooling.
    for (const pooler of ofKind<IPooler>(objects, 'Pooler'))
      expect([pooler.metadata?.name, pooler.spec.pgbouncer.poolMode]).toEqual([pooler.metadata?.name, 'session']);
    expect(rabbitmq?.spec.replicas).toBe(3);
    expect(redis?.spec?.replicas).toBe(3);
    expect(podSpec(redis as unknown as IJob).containers.map((c) => [c.name, c.ports?.map((p) => p.containerPort)])).toEqual([
      ['redis', [6379]],
      ['sentinel', [26379]],
    ]);
    // The namespace enforces the `restricted` Pod Security Standard: the pods made here, and the
    // RabbitMQ operator's through its override, meet it.
    const restricted = (
      pod:
        | {
            securityContext?: IPodSpec['securityContext'];
            containers?: Array<Partial<IContainer>>;
            initContainers?: Array<Partial<IContainer>>;
          }
        | undefined,
    ) => {
      expect([pod?.securityContext?.runAsNonRoot, pod?.securityContext?.seccompProfile?.type]).toEqual([true, 'RuntimeDefault']);
      for (const c of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])]) {
        expect([c.name, c.securityContext?.allowPrivilegeEscalation, c.securityContext?.capabilities?.drop]).toEqual([
          c.name,
          false,
          ['ALL'],
        ]);
      }
    };
    restricted(redis?.spec?.template.spec);
    restricted(rabbitmq?.spec.override?.statefulSet?.spec?.template?.spec);
    // Node drains take one pod of each at a time (CloudNativePG makes its own budgets unless told not to).
    expect(cluster?.spec.enablePDB).not.toBe(false);
    const budgets = ofKind<IPodDisruptionBudget>(objects, 'PodDisruptionBudget');
    for (const pod of [rabbitmqPod, redisPod])
      expect(budgets.filter((b) => matches(b.spec?.selector, pod)).map((b) => b.spec?.maxUnavailable)).toEqual([1]);
  });

  it("points every app at them, each a value the app accepts: DATABASE_URL the cluster's app Secret, RABBITMQ_URL the operator's default user, REDIS_URL the sentinels", async () => {
    // The operators' Secrets with their sample values, and svc-redis's password.
    const samples: ISecret[] = [
      ...operatorSecrets(namespace),
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'svc-redis' }, stringData: { password: '0123abcd' } },
    ];
    const resolved: Variant = { ...variant, objects: [...objects, ...(samples as unknown as K8sObject[])] };
    const [postgres, broker] = samples;
    const sets = { redis: redis!.metadata!.name!, service: redis!.spec!.serviceName };
    const script = ofKind<IConfigMap>(objects, 'ConfigMap').find((m) => m.metadata?.name === sets.redis)?.data?.['configure.sh'] ?? '';
    const masterName = /^set_name=(\S+)$/m.exec(script)?.[1];
    expect(masterName).toBeTruthy();
    const sentinels = Array.from({ length: redis!.spec!.replicas! }, (_, i) => `${sets.redis}-${i}.${sets.service}:26379`).join(',');
    const expected: Record<string, string> = {
      DATABASE_URL: postgres!.stringData!['uri']!,
      RABBITMQ_URL: `amqp://${broker!.stringData!['username']}:${broker!.stringData!['password']}@svc-rabbitmq.${namespace}.svc.cluster.local:5672`,
      REDIS_URL: `redis+sentinel://:0123abcd@${sentinels}/${masterName}?sentinelPassword=0123abcd`,
    };
    expect(workloads.filter((w) => uses(w, 'DATABASE_URL')).length).toBeGreaterThan(5);
    for (const workload of workloads) {
      const name = workload.metadata!.name!;
      const env = resolveEnv(resolved, mainContainer(workload));
      expect([name, env.problems]).toEqual([name, []]);
      const spec = specs.get(name);
      for (const variable of Object.keys(expected).filter((v) => uses(workload, v))) {
        expect([name, variable, env.values.get(variable)]).toEqual([name, variable, expected[variable]]);
        if (spec) expect([name, variable, refusal(spec, variable, expected[variable]!)]).toEqual([name, variable, undefined]);
      }
    }
    // Every app that reads RabbitMQ or Redis: those whose config declares REDIS_URL (the gateway and
    // the chat) the sentinels, the consumers the broker.
    const redisApps = apps.filter((app) => 'REDIS_URL' in specs.get(app)!);
    expect(redisApps).toEqual(['chat', 'gateway']);
    expect(
      workloads
        .filter((w) => uses(w, 'REDIS_URL'))
        .map((w) => w.metadata?.name)
        .sort(),
    ).toEqual(redisApps);
    expect(workloads.filter((w) => uses(w, 'RABBITMQ_URL')).length).toBeGreaterThan(3);
  });

  it('lets the apps and KEDA reach them, each set its own pods, Prometheus their metrics, and nobody else', () => {
    const data: Array<[string, Record<string, string>, number, string]> = [
      ['postgres', postgresPod, 5432, 'DATABASE_URL'],
      ['rabbitmq', rabbitmqPod, 5672, 'RABBITMQ_URL'],
      ['redis', redisPod, 6379, 'REDIS_URL'],
      ['redis sentinel', redisPod, 26379, 'REDIS_URL'],
    ];
    const verdict = (from: Source, to: Record<string, string>, port: number) =>
      (from.namespace === undefined ? egressAllowed(policies, from.pod, { pod: to, port }) : true) &&
      ingressAllowed(policies, to, from, port);
    for (const workload of workloads) {
      const labels = podLabels(workload);
      for (const [service, pod, port, variable] of data) {
        const name = workload.metadata?.name;
        // Every app that has the URL reaches the service; Redis (the gateway's and the chat's) refuses the others.
        const expected = uses(workload, variable) || (service.startsWith('redis') ? false : verdict({ pod: labels }, pod, port));
        expect([name, service, port, verdict({ pod: labels }, pod, port)]).toEqual([name, service, port, expected]);
      }
    }
    const keda: Source = { pod: { 'app.kubernetes.io/name': 'keda-operator' }, namespace: 'keda' };
    const monitoring: Source = { pod: { 'app.kubernetes.io/name': 'prometheus' }, namespace: 'monitoring' };
    const intruders: Source[] = [
      { pod: { 'app.kubernetes.io/name': 'intruder' } },
      { pod: { 'app.kubernetes.io/name': 'intruder' }, namespace: 'elsewhere' },
    ];
    expect([verdict(keda, postgresPod, 5432), verdict(keda, rabbitmqPod, 5672), verdict(keda, redisPod, 6379)]).toEqual([
      true,
      true,
      false,
    ]);
    expect([
      verdict(monitoring, postgresPod, 9187),
      verdict(monitoring, rabbitmqPod, 15692),
      verdict(monitoring, postgresPod, 5432),
    ]).toEqual([true, true, false]);
    expect([
      verdict({ pod: postgresPod }, postgresPod, 5432),
      verdict({ pod: rabbitmqPod }, rabbitmqPod, 25672),
      verdict({ pod: redisPod }, redisPod, 26379),
    ]).toEqual([true, true, true]);
    for (const intruder of intruders) {
      expect(data.map(([service, pod, port]) => [service, verdict(intruder, pod, port)])).toEqual(
        data.map(([service]) => [service, false]),
      );
    }
    // The data services' own pods are not under the product's egress policies (the operators'
    // pods reach the API server, backups their object store).
    for (const pod of [postgresPod, rabbitmqPod, redisPod]) expect(egressAllowed(policies, pod, { ip: '10.96.0.1', port: 443 })).toBe(true);
  });
});

(kubectl ? describe : describe.skip)('Kubernetes manifests: components/tracing (added to overlay prod, rendered)', () => {
  const render = (): K8sObject[] => {
    const result = renderProdWith(join(K8S, 'components', 'tracing'));
    expect(result.stderr).toBe('');
    return parseAllDocuments(result.stdout).map((d) => d.toJS() as K8sObject);
  };
  const objects = render();
  const collector = named(ofKind<IDeployment>(objects, 'Deployment'), 'otel-collector')[0];
  const apps = ofKind<IDeployment>(objects, 'Deployment').filter((d) =>
    ['gateway', 'service'].includes(podLabels(d)['app.kubernetes.io/component'] ?? ''),
  );

  it('points every app at the collector with 10% of traces sampled, through the shared settings', () => {
    const config = ofKind<IConfigMap>(objects, 'ConfigMap').find((c) => c.metadata?.name?.startsWith('svc-config'));
    expect(config?.data).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    });
    expect(apps.length).toBeGreaterThan(5);
    for (const app of apps) expect(podSpec(app).containers[0]?.envFrom?.map((e) => e.configMapRef?.name)).toContain(config?.metadata?.name);
  });

  it('runs the collector (two replicas, OTLP/HTTP on 4318, probes, limits) and lets the apps, and only them, reach it', () => {
    expect(collector?.spec?.replicas).toBe(2);
    const container = podSpec(collector!).containers[0]!;
    expect(container.ports?.map((p) => p.containerPort)).toContain(4318);
    expect(container.readinessProbe).toBeDefined();
    expect(container.resources?.limits?.['memory']).toBeDefined();
    const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
    const egress = policies.find((p) => p.metadata?.name === 'spans-to-collector');
    expect(egress?.spec?.egress?.[0]?.to?.[0]?.podSelector?.matchLabels).toEqual({ 'app.kubernetes.io/name': 'otel-collector' });
    const ingress = policies.find((p) => p.metadata?.name === 'otel-collector');
    expect(ingress?.spec?.ingress?.[0]?.ports).toEqual([{ port: 4318, protocol: 'TCP' }]);
  });
});

/**
 * overlays/prod with `components` listed first among its own (so that the overlay's images, replicas
 * and patches reach what they add, as an operator lists them), rendered from a copy of k8s/.
 */
function renderProdListing(...components: string[]): ReturnType<typeof kustomize> {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-listing-'));
  try {
    cpSync(K8S, dir, { recursive: true });
    const prod = join(dir, 'overlays', 'prod');
    const kustomization = readKustomization(prod);
    kustomization.components = [...components.map((c) => `../../components/${c}`), ...(kustomization.components ?? [])];
    writeFileSync(join(prod, 'kustomization.yaml'), stringify(kustomization));
    return kustomize(prod);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

(kubectl ? describe : describe.skip)(
  'Kubernetes manifests: components/search-shards (listed in overlay prod, with components/data)',
  () => {
    const result = renderProdListing('search-shards', 'data');
    const objects = result.status === 0 ? parseAllDocuments(result.stdout).map((d) => d.toJS() as K8sObject) : [];
    const deployments = ofKind<IDeployment>(objects, 'Deployment');
    const services = ofKind<IService>(objects, 'Service');
    const shards = [0, 1].map((i) => named(deployments, `knowledge-api-${i}`)[0]);
    const shardEnv = (d: IDeployment | undefined) => Object.fromEntries((podSpec(d!).containers[0]?.env ?? []).map((e) => [e.name, e]));

    it('renders', () => {
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    });

    it("runs knowledge-api as one Deployment per shard, with the overlay's image, replicas and data connections, instead of the unsharded one", () => {
      expect(named(deployments, 'knowledge-api')).toEqual([]);
      expect(named(ofKind<IPodDisruptionBudget>(objects, 'PodDisruptionBudget'), 'knowledge-api')).toEqual([]);
      const prodImage = containerOf(named(deployments, 'contacts-api')[0]!, 'contacts-api').image?.split('/svc-chat/')[0];
      for (const [i, shard] of shards.entries()) {
        expect(shard).toBeDefined();
        const env = shardEnv(shard);
        expect(env['SEARCH_SHARD']?.value).toBe(`${i}/2`);
        expect(env['DATABASE_URL']?.valueFrom?.secretKeyRef?.name).toBe('svc-postgres-app');
        expect(containerOf(shard!, 'knowledge-api').image).toMatch(new RegExp(`^${prodImage}/svc-chat/knowledge-api@sha256:`));
        expect(shard?.spec?.replicas).toBeGreaterThanOrEqual(2);
        expect(containerOf(shard!, 'knowledge-api').resources?.limits?.['memory']).toBe('1Gi');
        expect(shard?.spec?.selector.matchLabels?.['svc-chat/search-shard']).toBe(String(i));
        const budget = named(ofKind<IPodDisruptionBudget>(objects, 'PodDisruptionBudget'), `knowledge-api-${i}`)[0];
        expect(matches(budget?.spec?.selector, podLabels(shard!))).toBe(true);
      }
      // No Deployment selects the other's pods.
      expect(matches(shards[0]?.spec?.selector, podLabels(shards[1]!))).toBe(false);
      expect(matches(shards[1]?.spec?.selector, podLabels(shards[0]!))).toBe(false);
    });

    it("routes the chat's searches to each shard's Service, in shard order, and every other call to any replica", () => {
      const config = ofKind<IConfigMap>(objects, 'ConfigMap').find((c) => c.metadata?.name?.startsWith('svc-config'));
      const urls = config?.data?.['KNOWLEDGE_SEARCH_URLS']?.split(',') ?? [];
      expect(urls).toHaveLength(2);
      for (const [i, url] of urls.entries()) {
        const { hostname, port } = new URL(url);
        const service = named(services, hostname)[0];
        expect(hostname).toBe(`knowledge-api-${i}`);
        expect(service?.spec?.selector).toMatchObject({ 'svc-chat/search-shard': String(i) });
        expect(matches({ matchLabels: service?.spec?.selector }, podLabels(shards[i]!))).toBe(true);
        expect(matches({ matchLabels: service?.spec?.selector }, podLabels(shards[1 - i]!))).toBe(false);
        expect(service?.spec?.ports?.find((p) => p.port === Number(port))?.name).toBe('internal');
      }
      const chat = named(deployments, 'chat')[0]!;
      expect(podSpec(chat).containers[0]?.envFrom?.map((e) => e.configMapRef?.name)).toContain(config?.metadata?.name);
      const shared = named(services, 'knowledge-api')[0];
      for (const shard of shards) expect(matches({ matchLabels: shared?.spec?.selector }, podLabels(shard!))).toBe(true);
      const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
      for (const shard of shards)
        expect(ingressAllowed(policies, podLabels(shard!), { pod: podLabels(chat) }, 3103, 'internal')).toBe(true);
    });
  },
);
