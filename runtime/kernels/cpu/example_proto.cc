// Field numbers, as example.proto and feature.proto declare them:
//   Example   { Features features = 1; }
//   Features  { map<string, Feature> feature = 1; }   (entry: key = 1, value = 2)
//   Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
//                            Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }  FloatList { repeated float value = 1; }
//   Int64List { repeated int64 value = 1; }
#include "example_proto.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "../../src/wire_reader.h"

namespace opgen {
namespace example {
namespace {

namespace wire = ::opgen::wire;
using wire::Bytes;
using wire::Reader;

// Skips a field this reader does not take; false when it is malformed.
bool SkipField(Reader& r, uint32_t number, uint32_t wire_type) {
  return r.skip(wire_type, number);
}

bool ParseBytesList(Bytes bytes, std::vector<std::string_view>* out) {
  Reader r(bytes);
  uint32_t number, type;
  while (r.more()) {
    if (!r.tag(&number, &type)) return false;
    if (number == 1) {
      Bytes value;
      if (type != wire::kLengthDelimited || !r.length_delimited(&value)) return false;
      out->push_back(value);
    } else if (!SkipField(r, number, type)) {
      return false;
    }
  }
  return r.ok;
}

bool ParseFloatList(Bytes bytes, std::vector<float>* out) {
  out->reserve(out->size() + bytes.size() / 4);   // a bound: each value takes 4 bytes or more
  Reader r(bytes);
  uint32_t number, type;
  while (r.more()) {
    if (!r.tag(&number, &type)) return false;
    if (number == 1) {
      if (type != wire::kFixed32 && type != wire::kLengthDelimited) return false;
      const bool read = wire::repeated<wire::kFixed32>(r, type, [out](uint32_t bits) {
        float f;
        std::memcpy(&f, &bits, sizeof f);
        out->push_back(f);
      });
      if (!read) return false;
    } else if (!SkipField(r, number, type)) {
      return false;
    }
  }
  return r.ok;
}

bool ParseInt64List(Bytes bytes, std::vector<int64_t>* out) {
  // A bound (each value takes a byte or more), capped: 8 bytes held per input byte would
  // let a long list of small numbers ask for much more memory than it holds.
  out->reserve(out->size() + std::min<size_t>(bytes.size(), 4096));
  Reader r(bytes);
  uint32_t number, type;
  while (r.more()) {
    if (!r.tag(&number, &type)) return false;
    if (number == 1) {
      if (type != wire::kVarint && type != wire::kLengthDelimited) return false;
      const bool read = wire::repeated<wire::kVarint>(
          r, type, [out](uint64_t v) { out->push_back(static_cast<int64_t>(v)); });
      if (!read) return false;
    } else if (!SkipField(r, number, type)) {
      return false;
    }
  }
  return r.ok;
}

// Merges one serialized Feature into `f`.
bool MergeFeature(Bytes bytes, Feature* f) {
  Reader r(bytes);
  uint32_t number, type;
  while (r.more()) {
    if (!r.tag(&number, &type)) return false;
    if (number < 1 || number > 3) {
      if (!SkipField(r, number, type)) return false;
      continue;
    }
    Bytes list;
    if (type != wire::kLengthDelimited || !r.length_delimited(&list)) return false;
    const Kind kind = number == 1 ? Kind::kBytes : number == 2 ? Kind::kFloat : Kind::kInt64;
    if (f->kind != kind) {   // another oneof member: the earlier one is dropped
      *f = Feature();
      f->kind = kind;
    }
    const bool read = kind == Kind::kBytes   ? ParseBytesList(list, &f->bytes)
                      : kind == Kind::kFloat ? ParseFloatList(list, &f->floats)
                                             : ParseInt64List(list, &f->ints);
    if (!read) return false;
  }
  return r.ok;
}

// One map entry of Features.feature; a missing key is "", a missing value an empty Feature.
// The key may follow the value, so the value's pieces (a repeated field merges) are
// decoded once the entry is read, and only for a wanted key.
bool ParseEntry(Bytes bytes, const KeySet& wanted, FeatureMap* features) {
  Reader r(bytes);
  std::string_view key;
  Bytes pieces[4];
  std::vector<Bytes> more_pieces;
  size_t num_pieces = 0;
  uint32_t number, type;
  while (r.more()) {
    if (!r.tag(&number, &type)) return false;
    if (number == 1 || number == 2) {
      Bytes field;
      if (type != wire::kLengthDelimited || !r.length_delimited(&field)) return false;
      if (number == 1) {
        key = field;
      } else if (num_pieces < 4) {
        pieces[num_pieces++] = field;
      } else {
        more_pieces.push_back(field);
      }
    } else if (!SkipField(r, number, type)) {
      return false;
    }
  }
  if (!r.ok) return false;
  if (wanted.count(key) == 0) return true;
  Feature value;
  for (size_t i = 0; i < num_pieces; ++i)
    if (!MergeFeature(pieces[i], &value)) return false;
  for (Bytes piece : more_pieces)
    if (!MergeFeature(piece, &value)) return false;
  (*features)[key] = std::move(value);
  return true;
}

bool ParseFeatures(Bytes bytes, const KeySet& wanted, FeatureMap* features) {
  Reader r(bytes);
  uint32_t number, type;
  while (r.more()) {
    if (!r.tag(&number, &type)) return false;
    if (number == 1) {
      Bytes entry;
      if (type != wire::kLengthDelimited || !r.length_delimited(&entry)) return false;
      if (!ParseEntry(entry, wanted, features)) return false;
    } else if (!SkipField(r, number, type)) {
      return false;
    }
  }
  return r.ok;
}

}  // namespace

bool ParseExample(std::string_view serialized, const KeySet& wanted, FeatureMap* features) {
  features->clear();
  Reader r(serialized);
  uint32_t number, type;
  while (r.more()) {
    if (!r.tag(&number, &type)) return false;
    // Here (only) a mistyped `features` is skipped as an unknown field: TensorFlow and
    // protobuf both accept it.
    if (number == 1 && type == wire::kLengthDelimited) {
      Bytes message;
      if (type != wire::kLengthDelimited || !r.length_delimited(&message)) return false;
      if (!ParseFeatures(message, wanted, features)) return false;   // repeats merge
    } else if (!SkipField(r, number, type)) {
      return false;
    }
  }
  return r.ok;
}

}  // namespace example
}  // namespace opgen
