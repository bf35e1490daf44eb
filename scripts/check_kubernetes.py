"""The offline checks of deploy/kubernetes (scripts/check-kubernetes runs this).

For every kustomization (base and each overlay):
  1. the kustomization itself: known fields only, every file it lists exists, every patch, replicas and
     images entry names something the kustomization really has (a JSON patch whose target matches
     nothing is silently skipped by kustomize, so this is the only place such a slip shows);
  2. rendered with real kustomize (`kustomize build` or `kubectl kustomize`) when one is installed;
     without one, no rendering is faked: the resource files are checked as written, patches unapplied;
  3. every document against the Kubernetes OpenAPI schemas of fixed versions, strictly (an unknown
     field is an error), with kubernetes-validate;
  4. the references the API server does not check: selectors against pod labels, Service target ports,
     probe ports, INTENTMESH_PORT and the metrics port (gRPC port + 1000), environment variables and
     flags the services really read (taken from Sources/ and Services/), Secrets, ConfigMaps, keys,
     volumes and mounted file paths, the gateway's domain list against the headless Services, PDBs
     against replicas, rollout and shutdown timing, Pod Security "restricted" where a namespace
     enforces it. A Secret the manifests use but do not define must
     be created by a `kubectl create secret` command in deploy/kubernetes/README.md, with its keys.

Exits 1 with every problem listed, 0 when there is none."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import yaml

try:
    import kubernetes_validate
except ImportError:  # the wrapper installs it
    sys.exit("check_kubernetes: kubernetes-validate is missing (python3 -m pip install kubernetes-validate)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERSIONS = ("1.27.0", "1.32.0")  # 1.27: native gRPC probes are GA there; 1.32: a current release
KUSTOMIZATION_FIELDS = {
    "apiVersion", "kind", "namespace", "resources", "components", "patches", "images", "replicas",
    "configMapGenerator", "secretGenerator", "generatorOptions", "labels", "commonAnnotations", "namePrefix",
    "nameSuffix",
}
NAMESPACED = {"Deployment", "Service", "ConfigMap", "Secret", "PodDisruptionBudget", "PersistentVolumeClaim",
              "NetworkPolicy"}


class Checks:
    def __init__(self):
        self.problems = []
        self.count = 0

    def expect(self, condition, where, message):
        self.count += 1
        if not condition:
            self.problems.append(f"{where}: {message}")
        return condition


def load_yaml_documents(path):
    with open(path) as stream:
        return [document for document in yaml.safe_load_all(stream) if document]


def kebab(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower()


def project_vocabulary():
    """The environment variables and flags the services read, from their sources."""
    names, flags = set(), set()
    for folder in ("Sources", "Services"):
        for base, _, files in os.walk(os.path.join(ROOT, folder)):
            if "generated" in base.split(os.sep):
                continue
            for name in files:
                if not name.endswith((".swift", ".py")):
                    continue
                text = open(os.path.join(base, name), encoding="utf-8", errors="replace").read()
                names.update(re.findall(r"\b((?:INTENTMESH|UNICORNRIDES)_[A-Z0-9_]+)\b", text))
                for match in re.finditer(r"@(?:Option|Flag)\b", text):
                    var = re.search(r"\bvar\s+(\w+)", text[match.end():])
                    if var:
                        flags.add("--" + kebab(var.group(1)))
                flags.update(re.findall(r"add_argument\(\s*\"(--[a-z-]+)\"", text))
    return names, flags


def documented_secrets(readme):
    """{name: set of keys} for every `kubectl … create secret` command in the README."""
    secrets = {}
    if not os.path.exists(readme):
        return secrets
    text = open(readme).read().replace("\\\n", " ")
    for line in text.splitlines():
        match = re.search(r"create secret (generic|tls) ([a-z0-9-]+)(.*)", line)
        if not match:
            continue
        kind, name, rest = match.groups()
        keys = secrets.setdefault(name, set())
        if kind == "tls":
            keys.update({"tls.crt", "tls.key"})
        for key in re.findall(r"--from-(?:literal|file)=([^=\s]+)", rest):
            keys.add(key)
    return secrets


# ---------------------------------------------------------------- kustomizations, as written


def kustomization_of(folder):
    path = os.path.join(folder, "kustomization.yaml")
    return load_yaml_documents(path)[0] if os.path.exists(path) else None


def generated(spec):
    """The ConfigMaps and Secrets a kustomization's generators make (names unhashed)."""
    out = []
    for field, kind in (("configMapGenerator", "ConfigMap"), ("secretGenerator", "Secret")):
        for generator in spec.get(field) or []:
            data = {}
            for literal in generator.get("literals") or []:
                key, _, value = literal.partition("=")
                data[key] = value
            for entry in generator.get("files") or []:
                key, _, path = entry.rpartition("=")
                data[key or os.path.basename(path)] = ""
            out.append({"apiVersion": "v1", "kind": kind, "metadata": {"name": generator["name"]}, "data": data,
                        "_behavior": generator.get("behavior", "create")})
    return out


def raw_resources(folder, seen=None):
    """The documents a kustomization holds before its patches: its resource files, those of the
    kustomizations it includes, its generators' output. What a check without kustomize looks at."""
    seen = seen if seen is not None else set()
    spec = kustomization_of(folder)
    if spec is None or folder in seen:
        return []
    seen.add(folder)
    documents = []
    for entry in spec.get("resources") or []:
        path = os.path.normpath(os.path.join(folder, entry))
        if os.path.isdir(path):
            documents += raw_resources(path, seen)
        elif os.path.isfile(path):
            documents += load_yaml_documents(path)
    for document in generated(spec):
        if document.pop("_behavior") == "merge":
            for other in documents:
                if other.get("kind") == document["kind"] and other["metadata"]["name"] == document["metadata"]["name"]:
                    other.setdefault("data", {}).update(document["data"])
        else:
            documents.append(document)
    namespace = spec.get("namespace")
    if namespace:
        for document in documents:
            if document.get("kind") in NAMESPACED:
                document.setdefault("metadata", {})["namespace"] = namespace
    return documents


def check_kustomization(folder, checks):
    where = os.path.relpath(os.path.join(folder, "kustomization.yaml"), ROOT)
    spec = kustomization_of(folder)
    checks.expect(spec.get("kind") == "Kustomization", where, "kind is not Kustomization")
    for field in spec:
        checks.expect(field in KUSTOMIZATION_FIELDS, where, f"unknown or deprecated field {field!r}")
    for entry in spec.get("resources") or []:
        path = os.path.normpath(os.path.join(folder, entry))
        if checks.expect(os.path.exists(path), where, f"resource {entry} does not exist") and os.path.isdir(path):
            checks.expect(os.path.exists(os.path.join(path, "kustomization.yaml")), where,
                          f"resource folder {entry} has no kustomization.yaml")
    for field in ("configMapGenerator", "secretGenerator"):
        for generator in spec.get(field) or []:
            for entry in (generator.get("files") or []) + (generator.get("envs") or []):
                path = os.path.join(folder, entry.rpartition("=")[2])
                checks.expect(os.path.isfile(path), where, f"{field} {generator['name']}: {entry} does not exist")
    documents = raw_resources(folder)
    # Merge generators must merge into something the bases generate.
    for field, kind in (("configMapGenerator", "ConfigMap"), ("secretGenerator", "Secret")):
        for generator in spec.get(field) or []:
            if generator.get("behavior") == "merge":
                below = []
                for entry in spec.get("resources") or []:
                    path = os.path.normpath(os.path.join(folder, entry))
                    if os.path.isdir(path):
                        below += raw_resources(path)
                checks.expect(any(d["kind"] == kind and d["metadata"]["name"] == generator["name"] for d in below),
                              where, f"{field} {generator['name']} merges into nothing")
    for patch in spec.get("patches") or []:
        target = patch.get("target")
        label = patch.get("path") or "(inline patch)"
        body = None
        if patch.get("path"):
            path = os.path.join(folder, patch["path"])
            if not checks.expect(os.path.isfile(path), where, f"patch {label} does not exist"):
                continue
            body = load_yaml_documents(path)
        elif patch.get("patch"):
            body = list(yaml.safe_load_all(patch["patch"]))
        if target:
            name = re.compile(f"^(?:{target['name']})$") if target.get("name") else None
            matched = [d for d in documents
                       if (not target.get("kind") or d.get("kind") == target["kind"])
                       and (name is None or name.match(d["metadata"]["name"]))]
            checks.expect(matched, where, f"patch {label}: its target {target} matches nothing")
            if target.get("name") and "|" in target["name"]:
                for alternative in target["name"].split("|"):
                    checks.expect(any(d["metadata"]["name"] == alternative and d.get("kind") == target.get("kind")
                                      for d in documents), where,
                                  f"patch {label}: target name {alternative} matches no {target.get('kind')}")
        elif body and isinstance(body[0], dict) and "kind" in body[0]:
            for document in body:
                checks.expect(any(d.get("kind") == document["kind"]
                                  and d["metadata"]["name"] == document["metadata"]["name"] for d in documents),
                              where, f"patch {label}: no {document['kind']} {document['metadata']['name']} to patch")
        else:
            checks.expect(False, where, f"patch {label}: a JSON patch needs a target")
    deployments = {d["metadata"]["name"] for d in documents if d.get("kind") == "Deployment"}
    for entry in spec.get("replicas") or []:
        checks.expect(entry["name"] in deployments, where, f"replicas: no Deployment {entry['name']}")
    images = {c["image"].rsplit(":", 1)[0] for d in documents if d.get("kind") == "Deployment"
              for c in d["spec"]["template"]["spec"].get("containers", []) + d["spec"]["template"]["spec"].get(
                  "initContainers", [])}
    for entry in spec.get("images") or []:
        checks.expect(entry["name"] in images, where, f"images: no container runs {entry['name']}")
    return documents


# ---------------------------------------------------------------- rendering


def renderer():
    """A real kustomize, or None."""
    configured = os.environ.get("KUBECTL")
    if configured == "none":
        return None
    if not configured and shutil.which("kustomize"):
        return ["kustomize", "build"]
    kubectl = configured or shutil.which("kubectl")
    if kubectl and subprocess.run([kubectl, "kustomize", "--help"], capture_output=True).returncode == 0:
        return [kubectl, "kustomize"]
    return None


def render(command, folder):
    result = subprocess.run(command + [folder], capture_output=True, text=True)
    if result.returncode != 0:
        return None, result.stderr.strip()
    return [d for d in yaml.safe_load_all(result.stdout) if d], None


# ---------------------------------------------------------------- schemas


def check_schemas(documents, where, checks):
    for document in documents:
        name = f"{document.get('kind')}/{(document.get('metadata') or {}).get('name')}"
        for version in VERSIONS:
            try:
                kubernetes_validate.validate(document, version, strict=True)
                checks.expect(True, where, "")
            except kubernetes_validate.ValidationError as error:
                path = "".join(f"[{p!r}]" for p in error.path)
                checks.expect(False, where, f"{name} against Kubernetes {version} (strict): {error.message} at {path}")
            except Exception as error:  # an unknown kind or apiVersion
                checks.expect(False, where, f"{name} against Kubernetes {version}: {error}")


# ---------------------------------------------------------------- references


def subset(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def port_of(container, reference):
    """The containerPort a probe/Service/NetworkPolicy port (number or name) means, or None."""
    for port in container.get("ports") or []:
        if reference in (port.get("containerPort"), port.get("name")):
            return port["containerPort"]
    return None


def check_references(documents, where, checks, vocabulary, secrets_documented):
    env_names, flags = vocabulary
    by_kind = {}
    for document in documents:
        by_kind.setdefault(document["kind"], []).append(document)
    configmaps = {d["metadata"]["name"]: d for d in by_kind.get("ConfigMap", [])}
    secrets = {d["metadata"]["name"]: d for d in by_kind.get("Secret", [])}
    services = {d["metadata"]["name"]: d for d in by_kind.get("Service", [])}
    claims = {d["metadata"]["name"] for d in by_kind.get("PersistentVolumeClaim", [])}
    deployments = by_kind.get("Deployment", [])
    pods = [(d["metadata"]["name"], d["spec"]["template"]) for d in deployments]

    def keys_of(kind, name):
        if kind == "ConfigMap" and name in configmaps:
            return set((configmaps[name].get("data") or {}).keys()) | set((configmaps[name].get("binaryData") or {}))
        if kind == "Secret" and name in secrets:
            return set((secrets[name].get("data") or {})) | set((secrets[name].get("stringData") or {}))
        if kind == "Secret" and name in secrets_documented:
            return secrets_documented[name]
        return None

    def reference(kind, name, owner, key=None):
        if kind == "ConfigMap":
            exists = checks.expect(name in configmaps, where, f"{owner}: ConfigMap {name} is not defined")
        else:
            exists = checks.expect(name in secrets or name in secrets_documented, where,
                                   f"{owner}: Secret {name} is neither defined nor created by a command in "
                                   "deploy/kubernetes/README.md")
        if exists and key is not None:
            keys = keys_of(kind, name)
            checks.expect(keys is None or key in keys, where, f"{owner}: {kind} {name} has no key {key}")

    for name, template in pods:
        owner = f"Deployment/{name}"
        spec = template["spec"]
        labels = template["metadata"].get("labels") or {}
        deployment = next(d for d in deployments if d["metadata"]["name"] == name)
        checks.expect(subset(deployment["spec"]["selector"].get("matchLabels"), labels), where,
                      f"{owner}: selector {deployment['spec']['selector']} does not match the pod labels {labels}")
        strategy = deployment["spec"].get("strategy") or {}
        if strategy.get("type", "RollingUpdate") == "RollingUpdate":
            checks.expect((strategy.get("rollingUpdate") or {}).get("maxUnavailable") == 0, where,
                          f"{owner}: a rolling update must keep every pod until its successor is ready "
                          "(maxUnavailable: 0)")
        volumes = {v["name"]: v for v in spec.get("volumes") or []}
        grace = spec.get("terminationGracePeriodSeconds", 30)
        for volume in volumes.values():
            if "secret" in volume:
                reference("Secret", volume["secret"]["secretName"], owner)
            if "configMap" in volume:
                reference("ConfigMap", volume["configMap"]["name"], owner)
            if "persistentVolumeClaim" in volume:
                checks.expect(volume["persistentVolumeClaim"]["claimName"] in claims, where,
                              f"{owner}: PersistentVolumeClaim {volume['persistentVolumeClaim']['claimName']} "
                              "is not defined")
        for container in spec.get("containers", []) + spec.get("initContainers", []):
            cowner = f"{owner} container {container['name']}"
            ours = "intentmesh/" in container.get("image", "")
            mounts = container.get("volumeMounts") or []
            for mount in mounts:
                checks.expect(mount["name"] in volumes, where, f"{cowner}: volumeMount {mount['name']} has no volume")
            # The container's environment: its env, and the data of the ConfigMaps it takes whole.
            environment = {}
            for source in container.get("envFrom") or []:
                if "configMapRef" in source:
                    reference("ConfigMap", source["configMapRef"]["name"], cowner)
                    environment.update((configmaps.get(source["configMapRef"]["name"]) or {}).get("data") or {})
                if "secretRef" in source:
                    reference("Secret", source["secretRef"]["name"], cowner)
            for variable in container.get("env") or []:
                value_from = variable.get("valueFrom") or {}
                if "secretKeyRef" in value_from:
                    ref = value_from["secretKeyRef"]
                    reference("Secret", ref["name"], f"{cowner} env {variable['name']}", ref["key"])
                    environment[variable["name"]] = f"(Secret {ref['name']})"
                elif "configMapKeyRef" in value_from:
                    ref = value_from["configMapKeyRef"]
                    reference("ConfigMap", ref["name"], f"{cowner} env {variable['name']}", ref["key"])
                    environment[variable["name"]] = ((configmaps.get(ref["name"]) or {}).get("data") or {}).get(
                        ref["key"], "")
                else:
                    environment[variable["name"]] = variable.get("value", "")
            if ours:
                for variable in environment:
                    checks.expect(variable in env_names, where,
                                  f"{cowner}: {variable} is read by no IntentMesh service (Sources/, Services/)")
                # The ports the service really listens on.
                grpc = port_of(container, "grpc")
                checks.expect(grpc is not None, where, f"{cowner}: no container port named grpc")
                checks.expect(str(grpc) == environment.get("INTENTMESH_PORT"), where,
                              f"{cowner}: INTENTMESH_PORT={environment.get('INTENTMESH_PORT')} but the grpc port is "
                              f"{grpc}")
                metrics = port_of(container, "metrics")
                if metrics is not None:
                    expected = int(environment.get("INTENTMESH_METRICS_PORT") or (grpc or 0) + 1000)
                    checks.expect(metrics == expected, where,
                                  f"{cowner}: the metrics port is {metrics}, the service serves them on {expected}")
                checks.expect(environment.get("INTENTMESH_HOST") == "0.0.0.0", where,
                              f"{cowner}: INTENTMESH_HOST must be 0.0.0.0 (the default 127.0.0.1 is unreachable)")
                resources = container.get("resources") or {}
                checks.expect({"cpu", "memory"} <= set((resources.get("requests") or {})), where,
                              f"{cowner}: no cpu and memory requests")
                checks.expect("memory" in (resources.get("limits") or {}), where, f"{cowner}: no memory limit")
                # File paths in the environment must be in a mount, and name a key of what is mounted.
                read_only_root = (container.get("securityContext") or {}).get("readOnlyRootFilesystem")
                for variable, value in environment.items():
                    if not value.startswith("/") or variable == "INTENTMESH_MANIFEST_DIR":
                        continue
                    mount = max((m for m in mounts if value.startswith(m["mountPath"].rstrip("/") + "/")),
                                key=lambda m: len(m["mountPath"]), default=None)
                    if not checks.expect(mount is not None, where, f"{cowner}: {variable}={value} is in no mounted "
                                         "volume"):
                        continue
                    volume = volumes.get(mount["name"]) or {}
                    key = value[len(mount["mountPath"].rstrip("/")) + 1:]
                    if "secret" in volume:
                        keys = keys_of("Secret", volume["secret"]["secretName"])
                        checks.expect(keys is None or key in keys, where,
                                      f"{cowner}: {variable}={value}, but Secret {volume['secret']['secretName']} "
                                      f"has no key {key}")
                    elif "configMap" in volume:
                        keys = keys_of("ConfigMap", volume["configMap"]["name"])
                        checks.expect(keys is None or key in keys, where,
                                      f"{cowner}: {variable}={value}, but ConfigMap {volume['configMap']['name']} "
                                      f"has no key {key}")
                    if variable == "INTENTMESH_DATABASE":
                        checks.expect(not mount.get("readOnly") and ("persistentVolumeClaim" in volume
                                                                     or "emptyDir" in volume), where,
                                      f"{cowner}: the SQLite file {value} is not on a writable volume")
                # A domain left on the image's default store (a SQLite file under /data) would write to
                # the read-only root: it must name its store.
                if labels.get("app.kubernetes.io/component") == "domain":
                    checks.expect("INTENTMESH_DATABASE" in environment, where,
                                  f"{cowner}: no INTENTMESH_DATABASE (the image's default is a file on a read-only root)"
                                  if read_only_root else f"{cowner}: no INTENTMESH_DATABASE")
            # Probes: on a port the container has; an exec probe runs a flag the service has.
            for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
                probe = container.get(kind)
                if not probe:
                    checks.expect(not ours, where, f"{cowner}: no {kind}")
                    continue
                for handler in ("grpc", "tcpSocket", "httpGet"):
                    if handler in probe:
                        checks.expect(port_of(container, probe[handler]["port"]) is not None, where,
                                      f"{cowner}: {kind} {handler} port {probe[handler]['port']} is not a container "
                                      "port")
                if "exec" in probe and ours:
                    command = probe["exec"]["command"]
                    for argument in command[1:]:
                        if argument.startswith("--"):
                            checks.expect(argument.split("=")[0] in flags, where,
                                          f"{cowner}: {kind} runs {argument}, a flag no service has")
                if "exec" in probe and ours:
                    checks.expect(probe.get("timeoutSeconds", 1) > 3, where,
                                  f"{cowner}: {kind} times out before --health-check's own 3 s")
            if ours:
                liveness = container.get("livenessProbe") or {}
                checks.expect(liveness.get("periodSeconds", 10) * liveness.get("failureThreshold", 3) > grace, where,
                              f"{cowner}: the liveness probe could kill a pod that is still draining "
                              f"(period × failures ≤ terminationGracePeriodSeconds {grace})")
                stop = ((container.get("lifecycle") or {}).get("preStop") or {}).get("exec", {}).get("command", [])
                sleep = int(stop[-1]) if stop and stop[0].endswith("sleep") else 0
                checks.expect(sleep > 0, where, f"{cowner}: no preStop sleep before SIGTERM")
                checks.expect(grace >= sleep + 20, where,
                              f"{cowner}: terminationGracePeriodSeconds {grace} leaves under 20 s to drain after "
                              f"the preStop sleep ({sleep} s)")

    # Pod Security Admission: a namespace that enforces "restricted" refuses pods that do not comply.
    restricted = {d["metadata"]["name"] for d in by_kind.get("Namespace", [])
                  if (d["metadata"].get("labels") or {}).get("pod-security.kubernetes.io/enforce") == "restricted"}
    allowed_volumes = {"name", "configMap", "secret", "emptyDir", "persistentVolumeClaim", "projected", "downwardAPI",
                       "csi", "ephemeral"}
    for deployment in deployments:
        if deployment["metadata"].get("namespace") not in restricted:
            continue
        owner = f"Deployment/{deployment['metadata']['name']} (namespace enforces restricted)"
        spec = deployment["spec"]["template"]["spec"]
        pod = spec.get("securityContext") or {}
        checks.expect(not any(spec.get(k) for k in ("hostNetwork", "hostPID", "hostIPC")), where,
                      f"{owner}: host namespaces")
        for volume in spec.get("volumes") or []:
            checks.expect(set(volume) <= allowed_volumes, where, f"{owner}: volume {volume['name']} is not allowed")
        for container in spec.get("containers", []) + spec.get("initContainers", []):
            own = container.get("securityContext") or {}
            cowner = f"{owner} container {container['name']}"
            checks.expect(own.get("runAsNonRoot", pod.get("runAsNonRoot")) is True, where, f"{cowner}: runAsNonRoot")
            checks.expect(own.get("runAsUser", pod.get("runAsUser")) != 0, where, f"{cowner}: runs as root")
            checks.expect(own.get("allowPrivilegeEscalation") is False, where,
                          f"{cowner}: allowPrivilegeEscalation must be false")
            checks.expect(not own.get("privileged"), where, f"{cowner}: privileged")
            checks.expect("ALL" in ((own.get("capabilities") or {}).get("drop") or []), where,
                          f"{cowner}: capabilities must drop ALL")
            checks.expect(set((own.get("capabilities") or {}).get("add") or []) <= {"NET_BIND_SERVICE"}, where,
                          f"{cowner}: adds capabilities")
            seccomp = (own.get("seccompProfile") or pod.get("seccompProfile") or {}).get("type")
            checks.expect(seccomp in ("RuntimeDefault", "Localhost"), where, f"{cowner}: no seccompProfile")

    for service in services.values():
        owner = f"Service/{service['metadata']['name']}"
        selector = service["spec"].get("selector") or {}
        matched = [(n, t) for n, t in pods if subset(selector, t["metadata"].get("labels") or {})]
        if not checks.expect(matched, where, f"{owner}: selector {selector} matches no Deployment's pods"):
            continue
        for port in service["spec"].get("ports") or []:
            target = port.get("targetPort", port["port"])
            for name, template in matched:
                checks.expect(any(port_of(c, target) is not None for c in template["spec"]["containers"]), where,
                              f"{owner}: port {port.get('name')} targets {target}, which Deployment/{name} does "
                              "not expose")
        if (service["metadata"].get("labels") or {}).get("app.kubernetes.io/component") == "domain":
            checks.expect(service["spec"].get("clusterIP") == "None", where,
                          f"{owner}: a domain's Service must be headless (clusterIP: None) for the gateway to "
                          "see every replica")

    for budget in by_kind.get("PodDisruptionBudget", []):
        owner = f"PodDisruptionBudget/{budget['metadata']['name']}"
        selector = budget["spec"]["selector"].get("matchLabels") or {}
        matched = [d for d in deployments if subset(selector, d["spec"]["template"]["metadata"].get("labels") or {})]
        if checks.expect(len(matched) == 1, where, f"{owner}: selects {len(matched)} Deployments, not one"):
            replicas = matched[0]["spec"].get("replicas", 1)
            minimum = budget["spec"].get("minAvailable")
            if isinstance(minimum, int):
                checks.expect(minimum < replicas, where,
                              f"{owner}: minAvailable {minimum} with {replicas} replica(s) forbids every eviction")

    for policy in by_kind.get("NetworkPolicy", []):
        owner = f"NetworkPolicy/{policy['metadata']['name']}"
        selector = policy["spec"]["podSelector"].get("matchLabels") or {}
        matched = [t for _, t in pods if subset(selector, t["metadata"].get("labels") or {})]
        checks.expect(matched, where, f"{owner}: podSelector matches no pods")
        for rule in policy["spec"].get("ingress") or []:
            for peer in rule.get("from") or []:
                if "podSelector" in peer:
                    checks.expect(any(subset(peer["podSelector"].get("matchLabels") or {},
                                             t["metadata"].get("labels") or {}) for _, t in pods), where,
                                  f"{owner}: from podSelector matches no pods")
            for port in rule.get("ports") or []:
                checks.expect(any(port_of(c, port["port"]) is not None for t in matched for c in t["spec"]["containers"]),
                              where, f"{owner}: port {port['port']} is no port of the selected pods")

    # The gateway's domain list: each entry a headless domain Service and one of its ports; every
    # domain Service listed.
    for name, template in pods:
        for container in template["spec"]["containers"]:
            config = next((v.get("value") for v in container.get("env") or []
                           if v["name"] == "INTENTMESH_GATEWAY_CONFIG"), None)
            if (template["metadata"].get("labels") or {}).get("app.kubernetes.io/component") == "gateway":
                checks.expect(config, where, f"Deployment/{name}: the gateway has no INTENTMESH_GATEWAY_CONFIG "
                              "(its domain list)")
            if not config:
                continue
            owner = f"Deployment/{name}: {config}"
            mount = next((m for m in container.get("volumeMounts") or [] if config.startswith(m["mountPath"] + "/")),
                         None)
            volume = next((v for v in template["spec"].get("volumes") or [] if mount and v["name"] == mount["name"]),
                          None)
            if not checks.expect(volume and "configMap" in volume, where, f"{owner} is not in a mounted ConfigMap"):
                continue
            checks.expect(not mount.get("subPath"), where,
                          f"{owner}: mounted with subPath, so an edited ConfigMap would never reach the pod")
            configmap = configmaps.get(volume["configMap"]["name"])
            text = ((configmap or {}).get("data") or {}).get(config[len(mount["mountPath"]) + 1:])
            if not checks.expect(text is not None, where, f"{owner}: no such key in the ConfigMap"):
                continue
            try:
                entries = json.loads(text)["domains"]
            except (ValueError, KeyError, TypeError) as error:
                checks.expect(False, where, f"{owner} is not {{\"domains\": [\"host:port\", …]}}: {error}")
                continue
            namespace = configmap["metadata"].get("namespace")
            listed = set()
            for entry in entries:
                host, _, port = entry.rpartition(":")
                parts = host.split(".")
                service = services.get(parts[0])
                fqdn_ok = len(parts) == 1 or (namespace is not None and parts[1:] == [namespace, "svc", "cluster",
                                                                                       "local"])
                checks.expect(service is not None and fqdn_ok, where,
                              f"{owner}: {entry} names no Service of this namespace")
                if service is None:
                    continue
                listed.add(parts[0])
                checks.expect(service["spec"].get("clusterIP") == "None", where,
                              f"{owner}: {entry} is not a headless Service (the gateway would see one address)")
                checks.expect(port.isdigit() and int(port) in [p["port"] for p in service["spec"]["ports"]], where,
                              f"{owner}: {entry}: Service {parts[0]} has no port {port}")
            for service in services.values():
                if (service["metadata"].get("labels") or {}).get("app.kubernetes.io/component") == "domain":
                    checks.expect(service["metadata"]["name"] in listed, where,
                                  f"{owner}: the domain Service {service['metadata']['name']} is not listed")


# ---------------------------------------------------------------- main


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deploy", default=os.path.join(ROOT, "deploy", "kubernetes"),
                        help="the folder of kustomizations (default deploy/kubernetes)")
    options = parser.parse_args()
    deploy = os.path.abspath(options.deploy)
    checks = Checks()
    vocabulary = project_vocabulary()
    documented = documented_secrets(os.path.join(deploy, "README.md"))
    folders = sorted(os.path.dirname(os.path.join(base, "kustomization.yaml"))
                     for base, _, files in os.walk(deploy) if "kustomization.yaml" in files)
    if not folders:
        sys.exit(f"check_kubernetes: no kustomization.yaml under {deploy}")
    command = renderer()
    if command:
        print(f"rendering with {' '.join(command)} (real kustomize, offline)")
    else:
        print("NO kustomize here (neither kustomize nor kubectl kustomize): the overlays are NOT rendered; "
              "checking each kustomization's resource files as written, patches unapplied")
    print(f"schemas: kubernetes-validate {kubernetes_validate.version.__version__}, strict, Kubernetes "
          f"{' and '.join(VERSIONS)}")
    print(f"the services' vocabulary: {len(vocabulary[0])} environment variables, {len(vocabulary[1])} flags "
          f"(Sources/, Services/); {len(documented)} Secrets created in deploy/kubernetes/README.md: "
          f"{', '.join(sorted(documented)) or 'none'}")
    for folder in folders:
        where = os.path.relpath(folder, ROOT)
        before = (checks.count, len(checks.problems))
        raw = check_kustomization(folder, checks)
        if command:
            documents, error = render(command, folder)
            if not checks.expect(documents is not None, where, f"kustomize failed: {error}"):
                continue
        else:
            documents = raw
        for document in documents:
            document.pop("_behavior", None)
        check_schemas(documents, where, checks)
        check_references(documents, where, checks, vocabulary, documented)
        kinds = {}
        for document in documents:
            kinds[document["kind"]] = kinds.get(document["kind"], 0) + 1
        summary = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        problems = len(checks.problems) - before[1]
        print(f"  {where}: {len(documents)} documents ({summary}); {checks.count - before[0]} checks, "
              f"{problems} problem(s)")
    for problem in checks.problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    if checks.problems:
        print(f"check-kubernetes: {len(checks.problems)} problem(s) in {checks.count} checks", file=sys.stderr)
        return 1
    print(f"check-kubernetes: {checks.count} checks, no problem")
    return 0


if __name__ == "__main__":
    sys.exit(main())
