// Lookup tables, with TensorFlow's OpDefs: HashTableV2 / MutableHashTableV2 name a table
// of the session's (or eager context's) resource manager; the other ops fill, query,
// count and list it through that handle. Keras' StringLookup, IntegerLookup and
// TextVectorization keep their vocabularies in such tables. Every op has a resource
// arg, so each is stateful and constant folding leaves it alone.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {

namespace {

void HandleScalar(ShapeFnContext& c) { c.InputWithRank(0, 0, "table_handle"); }

// The values' shape comes from the table, unknown while the graph is built.
void FindShape(ShapeFnContext& c) {
  HandleScalar(c);
  c.SetOutput(0, PartialShape::Unknown());
}

void InitializeShape(ShapeFnContext& c) {
  HandleScalar(c);
  const PartialShape keys = c.InputWithRank(1, 1, "keys");
  MergeShapes(keys, c.InputWithRank(2, 1, "values"), "keys and values must have one shape");
}

void ExportShape(ShapeFnContext& c) {
  HandleScalar(c);
  c.SetOutput(0, PartialShape::UnknownDims(1));
  c.SetOutput(1, PartialShape::Unknown());
}

void SizeShape(ShapeFnContext& c) {
  HandleScalar(c);
  c.SetOutput(0, PartialShape::Of({}));
}

OpRegistration TableOp(const char* name, const char* summary, const char* description) {
  return OpRegistration{
      name,
      {"container: string = ''", "shared_name: string = ''",
       "use_node_name_sharing: bool = false", "key_dtype: type", "value_dtype: type"},
      {}, {"table_handle: resource"}, shape_fns::kScalar, summary, description,
      {{"table_handle", "A scalar handle of the table."},
       {"container", "The container of the table; empty: \"localhost\"."},
       {"shared_name", "The table's name; empty: one table per node (see the op)."},
       {"use_node_name_sharing", "With an empty shared_name, name the table after the node."},
       {"key_dtype", "The dtype of the keys: int32, int64 or string."},
       {"value_dtype", "The dtype of the values."}},
      false, false, true};
}

// MutableHashTableOfTensorsV2: TableOp's attrs and value_shape.
OpRegistration TensorTableOp() {
  OpRegistration op = TableOp(
      "MutableHashTableOfTensorsV2",
      "Makes a handle to a hash table whose values are tensors of one shape.",
      "As MutableHashTableV2, each key holding a tensor of value_shape: the values of n "
      "keys have the keys' shape followed by value_shape.");
  op.attrs.push_back("value_shape: shape = []");
  op.arg_docs.push_back({"value_shape", "The shape of each key's value, fully defined."});
  return op;
}

OpRegistration FillOp(const char* name, const char* key_attr, const char* value_attr,
                      OpShapeFn shape_fn, const char* summary, const char* description) {
  return OpRegistration{
      name, {std::string(key_attr) + ": type", std::string(value_attr) + ": type"},
      {"table_handle: resource", std::string("keys: ") + key_attr,
       std::string("values: ") + value_attr},
      {}, shape_fn, summary, description,
      {{"table_handle", "The handle of the table."},
       {"keys", "The keys, of the table's key dtype."},
       {"values", "One value per key, of the table's value dtype."},
       {key_attr, "The dtype of the keys."}, {value_attr, "The dtype of the values."}},
      false, false, true};
}

}  // namespace

void RegisterLookupOps(TF_Status* status) {
  RegisterOps({
      TableOp("HashTableV2", "Makes a handle to a hash table that is filled once.",
              "The table is made on the first run and kept by the resource manager; an "
              "import or initialization fills it; a later one leaves it as it is when it "
              "brings as many entries (TensorFlow compares the sizes only) and is refused "
              "otherwise. An "
              "empty shared_name gives each node a table of its own (named after the node "
              "with use_node_name_sharing)."),
      TableOp("MutableHashTableV2", "Makes a handle to a hash table that may change.",
              "Imports replace its contents, inserts add or overwrite entries and removes "
              "drop them."),
      TensorTableOp(),
      FillOp("LookupTableImportV2", "Tin", "Tout", ShapeFn<HandleScalar>,
             "Fills a table with keys and values of one shape.",
             "A HashTable is filled once (FAILED_PRECONDITION for one key with two values, "
             "or later for data of another size); a MutableHashTable's contents are "
             "replaced."),
      FillOp("InitializeTableV2", "Tkey", "Tval", ShapeFn<InitializeShape>,
             "Fills a table from vectors of keys and values.",
             "As LookupTableImportV2, with both inputs vectors of one size."),
      FillOp("LookupTableInsertV2", "Tin", "Tout", ShapeFn<HandleScalar>,
             "Adds or updates entries of a MutableHashTable.",
             "UNIMPLEMENTED for a HashTable, which is filled once."),
      {"LookupTableFindV2", {"Tin: type", "Tout: type"},
       {"table_handle: resource", "keys: Tin", "default_value: Tout"}, {"values: Tout"},
       ShapeFn<FindShape>, "Looks keys up in a table.",
       "Keys the table lacks get the default: a scalar, or for a MutableHashTable one "
       "default per key (keys' shape). INVALID_ARGUMENT for keys or a default of another "
       "dtype than the table's.",
       {{"table_handle", "The handle of the table."},
        {"keys", "The keys to look up, any shape."},
        {"default_value", "The value of a missing key."},
        {"values", "The values, shaped as keys."},
        {"Tin", "The dtype of the keys."}, {"Tout", "The dtype of the values."}},
       false, false, true},
      {"LookupTableRemoveV2", {"Tin: type"}, {"table_handle: resource", "keys: Tin"}, {},
       ShapeFn<HandleScalar>, "Removes keys from a mutable table.",
       "Keys the table lacks are ignored. UNIMPLEMENTED for a HashTable, which is filled "
       "once; INVALID_ARGUMENT for keys of another dtype than the table's.",
       {{"table_handle", "The handle of the table."},
        {"keys", "The keys to remove, any shape."},
        {"Tin", "The dtype of the keys."}},
       false, false, true},
      {"LookupTableSizeV2", {}, {"table_handle: resource"}, {"size: int64"},
       ShapeFn<SizeShape>, "The number of entries of a table.", "",
       {{"table_handle", "The handle of the table."}, {"size", "A scalar."}},
       false, false, true},
      {"LookupTableExportV2", {"Tkeys: type", "Tvalues: type"}, {"table_handle: resource"},
       {"keys: Tkeys", "values: Tvalues"}, ShapeFn<ExportShape>,
       "Every key and value of a table, as two vectors.",
       "In no particular order, as TensorFlow's.",
       {{"table_handle", "The handle of the table."}, {"keys", "The keys."},
        {"values", "The value of each key."}, {"Tkeys", "The table's key dtype."},
        {"Tvalues", "The table's value dtype."}},
       false, false, true},
  }, status);
}

}  // namespace opgen
