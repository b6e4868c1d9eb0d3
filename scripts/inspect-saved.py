#!/usr/bin/python3
"""Reads a file kerasgo saved, with Python's own libraries, and prints
what they see as JSON: every tensor's name, shape, dtype and values.

  /usr/bin/python3 scripts/inspect-saved.py model.keras        # h5py (python3-h5py)
  /usr/bin/python3 scripts/inspect-saved.py model.weights.h5   # h5py
  /usr/bin/python3 scripts/inspect-saved.py model.safetensors  # PyTorch (python3-torch)

Debian has no safetensors package, so .safetensors files are read with the
format's few rules: an 8-byte little-endian header length, a JSON header,
then the raw data, turned into tensors by torch.frombuffer.
"""
import io, json, struct, sys, zipfile


def from_h5(f):
    import h5py
    out = {}
    with h5py.File(f, "r") as h:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                v = obj[()]
                out[name] = {"shape": list(obj.shape), "dtype": str(obj.dtype),
                             "values": v.ravel().tolist() if obj.shape else [v.item()]}
        h.visititems(visit)
    return out


def from_safetensors(path):
    import torch
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        assert t["dtype"] == "F32", t
        b, e = t["data_offsets"]
        tensor = torch.frombuffer(bytearray(body[b:e]), dtype=torch.float32).reshape(t["shape"])
        out[name] = {"shape": list(tensor.shape), "dtype": "float32", "values": tensor.flatten().tolist()}
    return out


path = sys.argv[1]
if path.endswith(".keras"):
    with zipfile.ZipFile(path) as z:
        config = json.loads(z.read("config.json"))
        result = {"config_class": config["class_name"], "tensors": from_h5(io.BytesIO(z.read("model.weights.h5")))}
elif path.endswith(".safetensors"):
    result = {"tensors": from_safetensors(path)}
else:
    result = {"tensors": from_h5(path)}
json.dump(result, sys.stdout)
