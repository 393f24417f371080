// opgen._oplist_scan: the generator's front end for the common case, compiled.
//
// Two functions read the canonical serialization of an OpList (what
// `OpList.SerializeToString(deterministic=True)` gives):
//
//   check(data, types)   True when every op passes opgen's validation and op names are
//                        distinct, False when any does not, None when the bytes hold
//                        something this file does not read (an unterminated unknown
//                        group, say). Unless True, the Python validator (opgen.opdefs)
//                        runs and says what is wrong.
//   op_specs(data, ctx, skip)
//                        the OpSpec of every op, in input order, as opgen.model builds
//                        them for ops without ApiDef (None in place of those named in
//                        `skip`: the caller builds them); None unless check(data) holds.
//
// They are an accelerator, not a second authority: opgen.opdefs and opgen.model are the
// reference, used whenever this module is missing (or OPGEN_PURE_PYTHON is set), and
// tests/generator/test_oplist_scan.py holds both to the same answers on TensorFlow's
// registry and on generated and corrupted OpLists. Each distinct ArgDef and AttrDef
// (by bytes; TensorFlow's 13,000 are 2,900 distinct) is checked and built once; an op
// then costs index lookups and its cross-checks. An attr default of a kind this file
// does not convert (shape, tensor, func) is built by the Python callback in ctx.
//
// oplist_check.{h,cc} read and validate (no Python there); this file makes the Python
// records; runtime/src/wire_reader.h is the cursor over the bytes.

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "oplist_check.h"

namespace {

using namespace opgen_native;

bool read_rules(PyObject* data_types, Rules* rules) {
  PyObject* iterator = PyObject_GetIter(data_types);
  if (!iterator) return false;
  while (PyObject* item = PyIter_Next(iterator)) {
    long value = PyLong_AsLong(item);
    Py_DECREF(item);
    if (value == -1 && PyErr_Occurred()) {
      Py_DECREF(iterator);
      return false;
    }
    rules->data_types.insert(int32_t(value));
  }
  Py_DECREF(iterator);
  return !PyErr_Occurred();
}

// ------------------------------------------------------------------ Python objects

// Owns a reference; releases it on scope exit.
struct Ref {
  PyObject* object;
  explicit Ref(PyObject* o = nullptr) : object(o) {}
  ~Ref() { Py_XDECREF(object); }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  PyObject* get() const { return object; }
  PyObject* release() {
    PyObject* o = object;
    object = nullptr;
    return o;
  }
  explicit operator bool() const { return object != nullptr; }
};

PyObject* text(Bytes bytes) {
  return PyUnicode_DecodeUTF8(bytes.data(), Py_ssize_t(bytes.size()), nullptr);
}

// An AttrValue string: text when it is UTF-8, else bytes (opgen.model._scalar).
PyObject* string_value(Bytes bytes) {
  PyObject* value = PyUnicode_DecodeUTF8(bytes.data(), Py_ssize_t(bytes.size()), nullptr);
  if (value || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return value;
  PyErr_Clear();
  return PyBytes_FromStringAndSize(bytes.data(), Py_ssize_t(bytes.size()));
}

PyObject* float_value(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return PyFloat_FromDouble(double(value));
}

// The dict keys of the records, interned once.
struct Keys {
  PyObject *name, *kind, *type_attr, *fixed_type, *number_attr, *type_list_attr, *is_ref,
      *description, *api_name, *type, *default_, *allowed_values, *minimum, *inferred_from,
      *is_list, *element_type, *inputs, *outputs, *inferred_attrs, *required_attrs,
      *optional_attrs, *summary, *deprecation, *is_stateful, *is_commutative, *is_aggregate,
      *allows_uninitialized_input, *is_distributed_communication, *control_outputs,
      *visibility, *endpoints, *deprecated_endpoints, *input_order, *signature_inputs,
      *caller_attrs, *VISIBLE, *empty_text, *empty_tuple;
};
Keys keys;

bool make_keys() {
#define KEY(field, text) \
  if (!(keys.field = PyUnicode_InternFromString(text))) return false;
  KEY(name, "name") KEY(kind, "kind") KEY(type_attr, "type_attr") KEY(fixed_type, "fixed_type")
  KEY(number_attr, "number_attr") KEY(type_list_attr, "type_list_attr") KEY(is_ref, "is_ref")
  KEY(description, "description") KEY(api_name, "api_name") KEY(type, "type")
  KEY(default_, "default") KEY(allowed_values, "allowed_values") KEY(minimum, "minimum")
  KEY(inferred_from, "inferred_from") KEY(is_list, "is_list") KEY(element_type, "element_type")
  KEY(inputs, "inputs") KEY(outputs, "outputs") KEY(inferred_attrs, "inferred_attrs")
  KEY(required_attrs, "required_attrs") KEY(optional_attrs, "optional_attrs")
  KEY(summary, "summary") KEY(deprecation, "deprecation") KEY(is_stateful, "is_stateful")
  KEY(is_commutative, "is_commutative") KEY(is_aggregate, "is_aggregate")
  KEY(allows_uninitialized_input, "allows_uninitialized_input")
  KEY(is_distributed_communication, "is_distributed_communication")
  KEY(control_outputs, "control_outputs") KEY(visibility, "visibility")
  KEY(endpoints, "endpoints") KEY(deprecated_endpoints, "deprecated_endpoints")
  KEY(input_order, "input_order") KEY(signature_inputs, "signature_inputs")
  KEY(caller_attrs, "caller_attrs") KEY(VISIBLE, "VISIBLE") KEY(empty_text, "")
#undef KEY
  return (keys.empty_tuple = PyTuple_New(0)) != nullptr;
}

// What op_specs needs from opgen.model, passed by it (see model._native_context).
struct Context {
  PyObject *op_spec, *arg_spec, *attr_spec, *deprecation;
  PyObject *single, *number_list, *type_list;
  PyObject *no_default, *dtype, *new_attr;
  Rules rules;
};

bool set(PyObject* dict, PyObject* key, PyObject* value) {   // steals value
  if (!value) return false;
  int rc = PyDict_SetItem(dict, key, value);
  Py_DECREF(value);
  return rc == 0;
}

bool set_borrowed(PyObject* dict, PyObject* key, PyObject* value) {
  return PyDict_SetItem(dict, key, value) == 0;
}

// A new instance of frozen dataclass `cls`, filled through its own __dict__ as
// model.make_frozen does. (Giving it another dict instead would bypass how Python keeps
// an instance's attributes: 3.13 then finds none of them.)
struct Record {
  Ref object, dict;
  explicit Record(PyObject* cls)
      : object(PyBaseObject_Type.tp_new(reinterpret_cast<PyTypeObject*>(cls), keys.empty_tuple,
                                        nullptr)),
        dict(object ? PyObject_GenericGetDict(object.get(), nullptr) : nullptr) {}
  PyObject* release() { return object.release(); }
};

PyObject* optional_text(Bytes bytes) {
  if (bytes.empty()) Py_RETURN_NONE;
  return text(bytes);
}

PyObject* dtype(const Context& ctx, int64_t value) {
  Ref number(PyLong_FromLongLong(value));
  return number ? PyObject_CallOneArg(ctx.dtype, number.get()) : nullptr;
}

// model._arg_spec of an op without ApiDef.
PyObject* arg_spec(const Context& ctx, const ArgInfo& arg) {
  Record record(ctx.arg_spec);
  if (!record.dict) return nullptr;
  PyObject* kind = !arg.type_list_attr.empty() ? ctx.type_list
                   : !arg.number_attr.empty()  ? ctx.number_list
                                               : ctx.single;
  PyObject* d = record.dict.get();
  if (!set(d, keys.name, text(arg.name)) || !set_borrowed(d, keys.kind, kind) ||
      !set(d, keys.type_attr, optional_text(arg.type_attr)) ||
      !set(d, keys.fixed_type, arg.type ? dtype(ctx, arg.type) : Py_NewRef(Py_None)) ||
      !set(d, keys.number_attr, optional_text(arg.number_attr)) ||
      !set(d, keys.type_list_attr, optional_text(arg.type_list_attr)) ||
      !set(d, keys.is_ref, PyBool_FromLong(arg.is_ref)) ||
      !set(d, keys.description, text(arg.description)) ||
      !set_borrowed(d, keys.api_name, keys.empty_text))
    return nullptr;
  return record.release();
}

// One scalar of `element` from an AttrValue list or member.
PyObject* scalar_value(const Context& ctx, Bytes element, uint64_t integer, uint32_t bits,
                       Bytes bytes) {
  if (element == "string") return string_value(bytes);
  if (element == "int") return PyLong_FromLongLong(int64_t(integer));
  if (element == "float") return float_value(bits);
  if (element == "bool") return PyBool_FromLong(integer != 0);
  return dtype(ctx, int32_t(integer));   // "type"
}

// model.attr_value_to_python for the scalar kinds: a list for list types.
PyObject* default_value(const Context& ctx, const AttrInfo& attr, const AttrValue& value) {
  Bytes element = attr.element->name;
  if (!attr.is_list)
    return scalar_value(ctx, element, value.scalar, value.float_bits, value.payload);
  const std::vector<uint64_t>& ints = value.ints(attr.element->list_field);
  size_t n = element == "string" ? value.strings.size()
             : element == "float" ? value.floats.size()
                                  : ints.size();
  Ref list(PyList_New(Py_ssize_t(n)));
  if (!list) return nullptr;
  for (size_t i = 0; i < n; ++i) {
    PyObject* item =
        element == "string"  ? string_value(value.strings[i])
        : element == "float" ? float_value(value.floats[i])
                             : scalar_value(ctx, element, ints[i], 0, Bytes());
    if (!item) return nullptr;
    PyList_SET_ITEM(list.get(), Py_ssize_t(i), item);
  }
  return list.release();
}

// model._allowed_values: DType tuples are shared by their values within one call.
PyObject* allowed_values(const Context& ctx, const AttrInfo& attr, PyObject* type_cache) {
  AttrValue allowed;
  if (!read_attr_value(attr.allowed_bytes, &allowed)) {
    PyErr_SetString(PyExc_ValueError, "unreadable allowed_values");
    return nullptr;
  }
  bool types = attr.element->name == "type";
  // only the element's own ListValue field counts (a valid attr holds no other)
  size_t n = types ? allowed.list_type.size() : allowed.strings.size();
  Ref key(PyTuple_New(Py_ssize_t(n)));
  if (!key) return nullptr;
  for (size_t i = 0; i < n; ++i) {
    PyObject* item = types ? PyLong_FromLong(int32_t(allowed.list_type[i]))
                           : string_value(allowed.strings[i]);
    if (!item) return nullptr;
    PyTuple_SET_ITEM(key.get(), Py_ssize_t(i), item);
  }
  if (!types) return key.release();
  PyObject* cached = PyDict_GetItemWithError(type_cache, key.get());
  if (cached) return Py_NewRef(cached);
  if (PyErr_Occurred()) return nullptr;
  Ref dtypes(PyTuple_New(Py_ssize_t(n)));
  if (!dtypes) return nullptr;
  for (size_t i = 0; i < n; ++i) {
    PyObject* item = PyObject_CallOneArg(ctx.dtype, PyTuple_GET_ITEM(key.get(), Py_ssize_t(i)));
    if (!item) return nullptr;
    PyTuple_SET_ITEM(dtypes.get(), Py_ssize_t(i), item);
  }
  if (PyDict_SetItem(type_cache, key.get(), dtypes.get()) < 0) return nullptr;
  return dtypes.release();
}

// model._attr_spec of an attr no input infers, for an op without ApiDef.
PyObject* attr_spec(const Context& ctx, const AttrInfo& attr, PyObject* type_cache) {
  Bytes element = attr.element->name;
  bool converted = element == "string" || element == "int" || element == "float" ||
                   element == "bool" || element == "type";
  if (attr.has_default && !converted) {
    Ref bytes(PyBytes_FromStringAndSize(attr.bytes.data(), Py_ssize_t(attr.bytes.size())));
    return bytes ? PyObject_CallOneArg(ctx.new_attr, bytes.get()) : nullptr;
  }
  Record record(ctx.attr_spec);
  if (!record.dict) return nullptr;
  PyObject* d = record.dict.get();
  PyObject* default_object;
  if (attr.has_default) {
    AttrValue value;
    if (!read_attr_value(attr.default_bytes, &value)) {
      PyErr_SetString(PyExc_ValueError, "unreadable default_value");
      return nullptr;
    }
    default_object = default_value(ctx, attr, value);
  } else {
    default_object = Py_NewRef(ctx.no_default);
  }
  if (!set(d, keys.name, text(attr.name)) || !set(d, keys.type, text(attr.type)) ||
      !set(d, keys.default_, default_object) ||
      !set(d, keys.allowed_values,
           attr.has_allowed ? allowed_values(ctx, attr, type_cache) : Py_NewRef(Py_None)) ||
      !set(d, keys.minimum,
           attr.has_minimum ? PyLong_FromLongLong(attr.minimum) : Py_NewRef(Py_None)) ||
      !set_borrowed(d, keys.inferred_from, keys.empty_tuple) ||
      !set(d, keys.description, text(attr.description)) ||
      !set_borrowed(d, keys.api_name, keys.empty_text) ||
      !set(d, keys.is_list, PyBool_FromLong(attr.is_list)) ||
      !set(d, keys.element_type, text(element)))
    return nullptr;
  return record.release();
}

// The spec of `attr` inferred from the inputs `sources`, shared by (attr, sources)
// within one call as model.SharedSpecs.inferred does.
PyObject* inferred_spec(const Context& ctx, int attr_id, PyObject* plain, PyObject* sources,
                        PyObject* cache) {
  Ref id(PyLong_FromLong(attr_id));
  if (!id) return nullptr;
  Ref key(PyTuple_Pack(2, id.get(), sources));
  if (!key) return nullptr;
  PyObject* cached = PyDict_GetItemWithError(cache, key.get());
  if (cached) return Py_NewRef(cached);
  if (PyErr_Occurred()) return nullptr;
  Ref plain_dict(PyObject_GenericGetDict(plain, nullptr));
  Record record(ctx.attr_spec);
  if (!plain_dict || !record.dict || PyDict_Update(record.dict.get(), plain_dict.get()) < 0 ||
      !set_borrowed(record.dict.get(), keys.inferred_from, sources))
    return nullptr;
  Ref spec(record.release());
  if (PyDict_SetItem(cache, key.get(), spec.get()) < 0) return nullptr;
  return spec.release();
}

PyObject* deprecation(const Context& ctx, Bytes bytes) {
  Reader r(bytes);
  uint32_t number, wire_type;
  uint64_t version = 0;
  Bytes explanation;
  while (r.more()) {
    if (!r.tag(&number, &wire_type)) break;
    if (number == 1 && wire_type == kVarint) {
      if (!r.varint(&version)) break;
    } else if (number == 2 && wire_type == kLengthDelimited) {
      if (!r.length_delimited(&explanation)) break;
    } else if (!r.skip(wire_type, number)) {
      break;
    }
  }
  if (!r.ok) {
    PyErr_SetString(PyExc_ValueError, "unreadable OpDeprecation");
    return nullptr;
  }
  Ref text_object(text(explanation));
  if (!text_object) return nullptr;
  return PyObject_CallFunction(ctx.deprecation, "iO", int(int32_t(version)), text_object.get());
}

PyObject* tuple_of(const std::vector<PyObject*>& items) {   // borrowed items
  PyObject* tuple = PyTuple_New(Py_ssize_t(items.size()));
  if (!tuple) return nullptr;
  for (size_t i = 0; i < items.size(); ++i)
    PyTuple_SET_ITEM(tuple, Py_ssize_t(i), Py_NewRef(items[i]));
  return tuple;
}

// The records of the distinct args and attrs of one call, by their index in the Scan;
// borrowed from the lists op_specs holds them in.
struct Records {
  std::vector<PyObject*> arg_specs, arg_names, attr_specs;
  std::vector<bool> attr_required;   // the attr's default is NO_DEFAULT
};

PyObject* arg_tuple(const Records& records, const std::vector<int>& ids) {
  PyObject* tuple = PyTuple_New(Py_ssize_t(ids.size()));
  if (!tuple) return nullptr;
  for (size_t i = 0; i < ids.size(); ++i)
    PyTuple_SET_ITEM(tuple, Py_ssize_t(i), Py_NewRef(records.arg_specs[ids[i]]));
  return tuple;
}

// model._spec_from_wire, from the scanned op.
PyObject* op_spec(const Context& ctx, const Scan& scan, const Records& records, const OpInfo& op,
                  PyObject* inferred_cache) {
  Ref inputs(arg_tuple(records, op.inputs));
  Ref outputs(arg_tuple(records, op.outputs));
  if (!inputs || !outputs) return nullptr;
  // attr name -> the names of the inputs it follows from, in input order
  std::vector<std::pair<Bytes, std::vector<int>>> inferred_from;
  for (int id : op.inputs) {
    const ArgInfo& arg = scan.args[id];
    for (Bytes attr_name : {arg.type_attr, arg.number_attr, arg.type_list_attr}) {
      if (attr_name.empty()) continue;
      auto it = inferred_from.begin();
      while (it != inferred_from.end() && it->first != attr_name) ++it;
      if (it == inferred_from.end()) {
        inferred_from.push_back({attr_name, {}});
        it = inferred_from.end() - 1;
      }
      it->second.push_back(id);
    }
  }
  std::vector<PyObject*> required, optional;   // borrowed from the attr specs
  struct Owned {                                // the inferred specs: new references
    std::vector<PyObject*> items;
    ~Owned() {
      for (PyObject* o : items) Py_DECREF(o);
    }
  } inferred;
  for (int id : op.attrs) {
    const AttrInfo& attr = scan.attrs[id];
    const std::vector<int>* sources = nullptr;
    for (const auto& [name, ids] : inferred_from)
      if (name == attr.name) sources = &ids;
    if (sources) {
      Ref names(PyTuple_New(Py_ssize_t(sources->size())));
      if (!names) return nullptr;
      for (size_t i = 0; i < sources->size(); ++i) {
        PyTuple_SET_ITEM(names.get(), Py_ssize_t(i), Py_NewRef(records.arg_names[(*sources)[i]]));
      }
      PyObject* spec = inferred_spec(ctx, id, records.attr_specs[id], names.get(), inferred_cache);
      if (!spec) return nullptr;
      inferred.items.push_back(spec);
      continue;
    }
    (records.attr_required[id] ? required : optional).push_back(records.attr_specs[id]);
  }
  std::vector<PyObject*> caller = required;
  caller.insert(caller.end(), optional.begin(), optional.end());
  Ref control(PyTuple_New(Py_ssize_t(op.control_outputs.size())));
  if (!control) return nullptr;
  for (size_t i = 0; i < op.control_outputs.size(); ++i) {
    PyObject* item = text(op.control_outputs[i]);
    if (!item) return nullptr;
    PyTuple_SET_ITEM(control.get(), Py_ssize_t(i), item);
  }
  Ref name(text(op.name));
  if (!name) return nullptr;
  Ref endpoints(PyTuple_Pack(1, name.get()));
  Record record(ctx.op_spec);
  if (!endpoints || !record.dict) return nullptr;
  PyObject* d = record.dict.get();
  if (!set_borrowed(d, keys.name, name.get()) || !set_borrowed(d, keys.inputs, inputs.get()) ||
      !set_borrowed(d, keys.outputs, outputs.get()) ||
      !set(d, keys.inferred_attrs, tuple_of(inferred.items)) ||
      !set(d, keys.required_attrs, tuple_of(required)) ||
      !set(d, keys.optional_attrs, tuple_of(optional)) ||
      !set(d, keys.summary, text(op.summary)) ||
      !set(d, keys.description, text(op.description)) ||
      !set(d, keys.deprecation,
           op.has_deprecation ? deprecation(ctx, op.deprecation) : Py_NewRef(Py_None)) ||
      !set(d, keys.is_stateful, PyBool_FromLong(op.is_stateful)) ||
      !set(d, keys.is_commutative, PyBool_FromLong(op.is_commutative)) ||
      !set(d, keys.is_aggregate, PyBool_FromLong(op.is_aggregate)) ||
      !set(d, keys.allows_uninitialized_input, PyBool_FromLong(op.allows_uninitialized_input)) ||
      !set(d, keys.is_distributed_communication,
           PyBool_FromLong(op.is_distributed_communication)) ||
      !set_borrowed(d, keys.control_outputs, control.get()) ||
      !set_borrowed(d, keys.visibility, keys.VISIBLE) ||
      !set_borrowed(d, keys.endpoints, endpoints.get()) ||
      !set_borrowed(d, keys.deprecated_endpoints, keys.empty_tuple) ||
      !set_borrowed(d, keys.input_order, keys.empty_tuple) ||
      !set_borrowed(d, keys.signature_inputs, inputs.get()) ||
      !set(d, keys.caller_attrs, tuple_of(caller)))
    return nullptr;
  return record.release();
}

bool read_bytes_arg(PyObject* object, Bytes* out) {
  char* data;
  Py_ssize_t size;
  if (PyBytes_AsStringAndSize(object, &data, &size) < 0) return false;
  *out = Bytes(data, size_t(size));
  return true;
}

PyObject* py_check(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  Bytes data;
  Rules rules;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "check(data, data_types)");
    return nullptr;
  }
  if (!read_bytes_arg(args[0], &data) || !read_rules(args[1], &rules)) return nullptr;
  Scan scan;
  if (!scan_oplist(data, rules, &scan)) Py_RETURN_NONE;
  return PyBool_FromLong(scan.all_valid);
}

PyObject* op_specs(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 2 || nargs > 3 || !PyTuple_Check(args[1]) || PyTuple_GET_SIZE(args[1]) != 11) {
    PyErr_SetString(PyExc_TypeError,
                    "op_specs(data, context, skip=None): context is an 11-tuple");
    return nullptr;
  }
  PyObject* skip = nargs == 3 && args[2] != Py_None ? args[2] : nullptr;
  Bytes data;
  Context ctx;
  PyObject* c = args[1];
  ctx.op_spec = PyTuple_GET_ITEM(c, 0);
  ctx.arg_spec = PyTuple_GET_ITEM(c, 1);
  ctx.attr_spec = PyTuple_GET_ITEM(c, 2);
  ctx.deprecation = PyTuple_GET_ITEM(c, 3);
  ctx.single = PyTuple_GET_ITEM(c, 4);
  ctx.number_list = PyTuple_GET_ITEM(c, 5);
  ctx.type_list = PyTuple_GET_ITEM(c, 6);
  ctx.no_default = PyTuple_GET_ITEM(c, 7);
  ctx.dtype = PyTuple_GET_ITEM(c, 8);
  ctx.new_attr = PyTuple_GET_ITEM(c, 9);
  for (PyObject* cls : {ctx.op_spec, ctx.arg_spec, ctx.attr_spec}) {
    if (!PyType_Check(cls)) {
      PyErr_SetString(PyExc_TypeError, "op_specs: the record classes must be types");
      return nullptr;
    }
  }
  if (!read_bytes_arg(args[0], &data) || !read_rules(PyTuple_GET_ITEM(c, 10), &ctx.rules))
    return nullptr;
  Scan scan;
  if (!scan_oplist(data, ctx.rules, &scan) || !scan.all_valid) Py_RETURN_NONE;
  // The cyclic collector would walk every record made so far, several times over, while
  // none of them can be part of a cycle yet: it is paused for the call (~40% of it).
  struct PauseGC {
    int was_enabled = PyGC_Disable();
    ~PauseGC() {
      if (was_enabled) PyGC_Enable();
    }
  } pause_gc;

  // Specs of the distinct args and attrs, held by these lists for the call.
  Ref arg_specs(PyList_New(Py_ssize_t(scan.args.size())));
  Ref attr_specs(PyList_New(Py_ssize_t(scan.attrs.size())));
  Ref type_cache(PyDict_New()), inferred_cache(PyDict_New());
  if (!arg_specs || !attr_specs || !type_cache || !inferred_cache) return nullptr;
  Records records;
  for (size_t i = 0; i < scan.args.size(); ++i) {
    PyObject* spec = arg_spec(ctx, scan.args[i]);
    if (!spec) return nullptr;
    PyList_SET_ITEM(arg_specs.get(), Py_ssize_t(i), spec);
    records.arg_specs.push_back(spec);
    PyObject* name = PyObject_GetAttr(spec, keys.name);   // the spec keeps it alive
    if (!name) return nullptr;
    Py_DECREF(name);
    records.arg_names.push_back(name);
  }
  for (size_t i = 0; i < scan.attrs.size(); ++i) {
    PyObject* spec = attr_spec(ctx, scan.attrs[i], type_cache.get());
    if (!spec) return nullptr;
    PyList_SET_ITEM(attr_specs.get(), Py_ssize_t(i), spec);
    records.attr_specs.push_back(spec);
    PyObject* default_object = PyObject_GetAttr(spec, keys.default_);
    if (!default_object) return nullptr;
    records.attr_required.push_back(default_object == ctx.no_default);
    Py_DECREF(default_object);
  }
  Ref specs(PyList_New(Py_ssize_t(scan.ops.size())));
  if (!specs) return nullptr;
  for (size_t i = 0; i < scan.ops.size(); ++i) {
    if (skip) {   // ops the caller builds itself (those with an ApiDef) stay None
      Ref name(text(scan.ops[i].name));
      if (!name) return nullptr;
      int skipped = PySequence_Contains(skip, name.get());
      if (skipped < 0) return nullptr;
      if (skipped) {
        PyList_SET_ITEM(specs.get(), Py_ssize_t(i), Py_NewRef(Py_None));
        continue;
      }
    }
    PyObject* spec = op_spec(ctx, scan, records, scan.ops[i], inferred_cache.get());
    if (!spec) return nullptr;
    PyList_SET_ITEM(specs.get(), Py_ssize_t(i), spec);
  }
  return specs.release();
}

PyObject* py_op_specs(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  PyObject* specs = op_specs(self, args, nargs);
  // Text that is not UTF-8 never comes from protobuf (it refuses such proto3 strings):
  // these bytes are not what this module reads, so the Python path takes them.
  if (!specs && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  return specs;
}

// The ops of a serialized OpList, sorted by name (stably), as one serialized OpList;
// None when it holds a field other than op, or bytes that do not read.
PyObject* py_sorted_by_name(PyObject*, PyObject* data_object) {
  Bytes data;
  if (!read_bytes_arg(data_object, &data)) return nullptr;
  struct Field {
    Bytes name, field;
  };
  std::vector<Field> fields;
  Reader r(data);
  uint32_t number, wire_type;
  while (r.more()) {
    const char* start = reinterpret_cast<const char*>(r.p);
    Bytes body;
    if (!r.tag(&number, &wire_type) || number != 1 || wire_type != kLengthDelimited ||
        !r.length_delimited(&body))
      Py_RETURN_NONE;
    Field f{Bytes(), Bytes(start, size_t(reinterpret_cast<const char*>(r.p) - start))};
    Reader op(body);   // the name: last one wins, as protobuf reads it
    uint32_t op_number, op_wire_type;
    while (op.more()) {
      if (!op.tag(&op_number, &op_wire_type)) Py_RETURN_NONE;
      if (op_number == 1 && op_wire_type == kLengthDelimited) {
        if (!op.length_delimited(&f.name)) Py_RETURN_NONE;
      } else if (!op.skip(op_wire_type, op_number)) {
        Py_RETURN_NONE;
      }
    }
    fields.push_back(f);
  }
  // UTF-8 byte order is code point order, which is how Python sorts the names
  std::stable_sort(fields.begin(), fields.end(),
                   [](const Field& a, const Field& b) { return a.name < b.name; });
  PyObject* out = PyBytes_FromStringAndSize(nullptr, Py_ssize_t(data.size()));
  if (!out) return nullptr;
  char* cursor = PyBytes_AS_STRING(out);
  for (const Field& f : fields) {
    std::memcpy(cursor, f.field.data(), f.field.size());
    cursor += f.field.size();
  }
  return out;
}

PyMethodDef methods[] = {
    {"sorted_by_name", py_sorted_by_name, METH_O,
     "sorted_by_name(data) -> bytes | None: the ops of serialized OpList `data` in name "
     "order (stable), serialized; None when `data` holds other fields or does not read."},
    {"check", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_check)),
     METH_FASTCALL,
     "check(data, data_types) -> bool | None: whether every op of the canonical OpList "
     "bytes `data` is valid and op names are distinct; None when the bytes hold something "
     "this module does not read."},
    {"op_specs", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_op_specs)),
     METH_FASTCALL,
     "op_specs(data, context, skip=None) -> list[OpSpec | None] | None: the OpSpecs of "
     "every op, in input order, as opgen.model builds them for ops without ApiDef (None for "
     "ops whose name is in `skip`); None unless check() holds."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "opgen._oplist_scan",
    "The generator's front end for valid OpLists, compiled (see opgen.opdef_wire).", -1,
    methods, nullptr, nullptr, nullptr, nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit__oplist_scan(void) {
  if (!make_keys()) return nullptr;
  return PyModule_Create(&module);
}
