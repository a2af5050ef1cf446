"""Runs an autopar DTensor export against stand-ins for torch's distributed API and checks the
rules torch applies to it (torch is not installed here, and cannot be).

    python3 dtensor_rules.py EXPORT.py FACTS.json TORCH_VERSION

TORCH_VERSION is 2.4 or 2.5: the stand-in modules hold exactly the names those releases export
(read from the pytorch sources: torch/distributed/device_mesh.py, torch/distributed/_tensor/
__init__.py in 2.4, torch/distributed/tensor/__init__.py from 2.5 on, when DTensor moved to the
public namespace in pytorch#133113, and torch/distributed/tensor/parallel/__init__.py), so an
import of a name that release lacks fails as it would there.
FACTS.json says what the model is, from autopar's graph, not from the export:
  {"devices": N, "device_type": "cuda",
   "params": {"qkv_1.weight": {"shape": [out, in] (torch layout), "module_kind": "linear"}, ...},
   "sharded": ["qkv_1.weight", ...]}   (the parameters the plan splits over some mesh axis)
Prints each broken rule and exits 1; exits 0 when every rule holds.
"""
import json
import sys
import types

errors = []


def rule(ok, message):
    if not ok:
        errors.append(message)


# --- stand-ins ---------------------------------------------------------------------------------
class Placement:
    pass


class Shard(Placement):
    def __init__(self, dim):
        rule(isinstance(dim, int), "Shard(dim) takes an int dimension, got %r" % (dim,))
        self.dim = dim

    def __eq__(self, o):
        return isinstance(o, Shard) and o.dim == self.dim

    def __repr__(self):
        return "Shard(%d)" % self.dim


class Replicate(Placement):
    def __eq__(self, o):
        return isinstance(o, Replicate)

    def __repr__(self):
        return "Replicate()"


class Partial(Placement):
    pass


class DeviceMesh:
    def __init__(self, device_type, shape, names):
        self.device_type, self.shape, self.mesh_dim_names = device_type, tuple(shape), names

    @property
    def ndim(self):
        return len(self.shape)

    def __getitem__(self, name):
        # DeviceMesh.__getitem__ slices by mesh_dim_names (torch/distributed/device_mesh.py).
        rule(self.mesh_dim_names is not None, "mesh[%r] needs a mesh with mesh_dim_names" % (name,))
        names = self.mesh_dim_names or ()
        rule(name in names, "mesh[%r]: the mesh's dims are named %r" % (name, names))
        if name not in names:
            return DeviceMesh(self.device_type, (1,), (name,))
        return DeviceMesh(self.device_type, (self.shape[names.index(name)],), (name,))


meshes = []


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None):
    rule(isinstance(device_type, str), "init_device_mesh: device_type must be a str")
    rule(isinstance(mesh_shape, tuple) and all(isinstance(n, int) and n >= 1 for n in mesh_shape),
         "init_device_mesh: mesh_shape must be a tuple of positive ints, got %r" % (mesh_shape,))
    if mesh_dim_names is not None:
        rule(isinstance(mesh_dim_names, tuple) and len(mesh_dim_names) == len(mesh_shape),
             "init_device_mesh: mesh_dim_names must be a tuple with one name per mesh dim")
        rule(len(set(mesh_dim_names)) == len(mesh_dim_names), "init_device_mesh: mesh_dim_names must be unique")
    m = DeviceMesh(device_type, mesh_shape, mesh_dim_names)
    meshes.append(m)
    return m


class DTensor:
    def __init__(self, mesh, placements, shape):
        self.device_mesh, self.placements, self.shape = mesh, tuple(placements), shape
        self.data = self


class FakeTensor:
    def __init__(self, name, shape):
        self.name, self.shape = name, shape
        self.data = self


def check_placements(where, tensor, mesh, placements):
    rule(len(placements) == mesh.ndim, "%s: %d placements for a %d-D mesh" % (where, len(placements), mesh.ndim))
    for p in placements:
        rule(isinstance(p, (Shard, Replicate)), "%s: placement %r is not Shard or Replicate" % (where, p))
        if isinstance(p, Shard):
            rule(0 <= p.dim < len(tensor.shape), "%s: Shard(%d) of a %d-D tensor" % (where, p.dim, len(tensor.shape)))


distributed = {}


def distribute_tensor(tensor, device_mesh=None, placements=None):
    rule(isinstance(tensor, FakeTensor), "distribute_tensor: %r is not a plain tensor (already distributed?)" % (tensor,))
    rule(device_mesh is not None and placements is not None, "distribute_tensor needs a mesh and placements")
    name = getattr(tensor, "name", "?")
    check_placements("distribute_tensor(%s)" % name, tensor, device_mesh, placements)
    distributed[name] = (device_mesh, list(placements))
    return DTensor(device_mesh, placements, tensor.shape)


class ParallelStyle:
    def __init__(self, **kwargs):
        pass


class ColwiseParallel(ParallelStyle):
    pass


class RowwiseParallel(ParallelStyle):
    pass


class SequenceParallel(ParallelStyle):
    pass


class PrepareModuleInput(ParallelStyle):
    pass


class PrepareModuleOutput(ParallelStyle):
    pass


parallelized = []


def parallelize_module(module, device_mesh, parallelize_plan):
    rule(device_mesh.ndim == 1, "parallelize_module with a dict plan needs a 1-D mesh (slice the tp dim), got %d-D" % device_mesh.ndim)
    for path, style in parallelize_plan.items():
        rule(isinstance(style, (ColwiseParallel, RowwiseParallel)), "%s: %r is not a parallel style" % (path, style))
        sub = module.get_submodule(path)
        # ColwiseParallel and RowwiseParallel support nn.Linear and nn.Embedding only (style.py).
        rule(sub.kind in ("linear", "embedding"), "%s: %s only parallelises nn.Linear and nn.Embedding, not a %s"
             % (path, type(style).__name__, sub.kind))
        for pname, t in list(sub.params.items()):
            full = path + "." + pname
            # What style.py's partition functions do: Colwise shards a Linear's weight [out, in] and
            # bias on dim 0, Rowwise its weight on dim 1 and replicates the bias; an Embedding's
            # weight is Shard(1) under Colwise, Shard(0) under Rowwise.
            if sub.kind == "linear":
                if isinstance(style, ColwiseParallel):
                    placement = Shard(0)
                else:
                    placement = Shard(1) if pname == "weight" else Replicate()
            else:
                placement = Shard(1) if isinstance(style, ColwiseParallel) else Shard(0)
            sub.params[pname] = DTensor(device_mesh, [placement], t.shape)
            parallelized.append((full, device_mesh, placement))
    return module


# --- the fake model ----------------------------------------------------------------------------
class FakeModule:
    def __init__(self, kind):
        self.kind, self.params = kind, {}

    def __getattr__(self, name):
        params = self.__dict__.get("params", {})
        if name in params:
            return params[name]
        raise AttributeError(name)

    def register_parameter(self, name, value):
        rule(name in self.params, "register_parameter(%r): the module has no such parameter" % name)
        self.params[name] = value


class FakeModel:
    def __init__(self, facts):
        self.modules = {}
        for name, p in facts["params"].items():
            module, _, pname = name.rpartition(".")
            m = self.modules.setdefault(module, FakeModule(p["module_kind"]))
            m.params[pname] = FakeTensor(name, p["shape"])

    def get_submodule(self, path):
        rule(path in self.modules, "get_submodule(%r): the model has no such module" % path)
        return self.modules.get(path) or FakeModule("missing")


def install(version):
    def module(name, **names):
        m = types.ModuleType(name)
        m.__path__ = []   # a package, so that submodules import
        m.__dict__.update(names)
        sys.modules[name] = m
        return m

    dtensor = dict(DTensor=DTensor, DeviceMesh=DeviceMesh, distribute_tensor=distribute_tensor, init_device_mesh=init_device_mesh,
                   Shard=Shard, Replicate=Replicate, Partial=Partial, Placement=Placement)
    module("torch")
    module("torch.nn", Module=object, Parameter=lambda t, requires_grad=True: t, Linear=object, Embedding=object)
    module("torch.distributed")
    module("torch.distributed.device_mesh", DeviceMesh=DeviceMesh, init_device_mesh=init_device_mesh)
    if version == "2.4":
        module("torch.distributed._tensor", **dtensor)
        module("torch.distributed.tensor")   # only the parallel subpackage
    else:
        module("torch.distributed.tensor", **dtensor)
        module("torch.distributed._tensor", **dtensor)   # the shim kept for old imports
    module("torch.distributed.tensor.parallel", parallelize_module=parallelize_module, ColwiseParallel=ColwiseParallel,
           RowwiseParallel=RowwiseParallel, SequenceParallel=SequenceParallel, PrepareModuleInput=PrepareModuleInput,
           PrepareModuleOutput=PrepareModuleOutput)
    sys.modules["torch"].nn = sys.modules["torch.nn"]


def main():
    export_path, facts_path, version = sys.argv[1:4]
    facts = json.load(open(facts_path))
    install(version)
    source = open(export_path).read()
    scope = {"__name__": "autopar_export"}
    try:
        exec(compile(source, export_path, "exec"), scope)
    except ImportError as e:
        errors.append("torch %s: %s" % (version, e))
    if not errors:
        rule(len(meshes) == 1, "the export builds %d device meshes, not one" % len(meshes))
        mesh = meshes[0] if meshes else None
        if mesh:
            n = 1
            for d in mesh.shape:
                n *= d
            rule(n == facts["devices"], "the mesh %r has %d devices, not the plan's %d" % (mesh.shape, n, facts["devices"]))
            rule(mesh.device_type == facts["device_type"], "device type %r, not %r" % (mesh.device_type, facts["device_type"]))
            rule(mesh.mesh_dim_names is not None and "tp" in mesh.mesh_dim_names, "the mesh needs a dim named \"tp\"")
        placements = scope.get("param_placements", {})
        for name, p in facts["params"].items():
            rule(name in placements, "parameter %s has no placements" % name)
            if name in placements and mesh:
                check_placements("param_placements[%s]" % name, FakeTensor(name, p["shape"]), mesh, placements[name])
        model = FakeModel(facts)
        scope["apply"](model)
        placed = {name for name, _, _ in parallelized} | set(distributed)
        for name in facts["sharded"]:
            rule(name in placed, "sharded parameter %s is placed neither by tp_plan nor by distribute_tensor" % name)
        # What the styles placed must be what the plan says, on the "tp" dim with "dp" replicated.
        if mesh and mesh.mesh_dim_names:
            tp = mesh.mesh_dim_names.index("tp")
            for name, sub, placement in parallelized:
                want = placements.get(name)
                if want is None or len(want) != mesh.ndim:
                    continue   # reported above
                rule(want[tp] == placement and all(isinstance(q, Replicate) for i, q in enumerate(want) if i != tp),
                     "%s: tp_plan places it %r on \"tp\", the plan says %r" % (name, placement, want))
            for name, (m, ps) in distributed.items():
                rule(m is mesh, "%s: distributed on a sub-mesh, not the whole mesh" % name)
                rule(ps == list(placements.get(name, [])), "%s: distributed as %r, the plan says %r" % (name, ps, placements.get(name)))
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


main()
