// The non-template half of the typed pipeline (include/odm/aggregation/): writing stages.

#include <odm/aggregation/expression.hpp>
#include <odm/aggregation/group.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/writer.hpp>
#include <odm/aggregation/pipeline.hpp>

#include <odm/model/direction.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>

namespace odm::detail {

std::string field_reference(const PathNames& names) { return "$" + names.dotted(); }

namespace {

void append_utf8(bson_t* out, std::string_view key, std::string_view value) {
  check_append(bson_append_utf8(out, key.data(), key_length(key), value.data(), key_length(value)));
}

/// A member renamed in its expand phase, as its old name's path and its new name's.
std::pair<PathNames, PathNames> old_and_new(const PathNames& names) {
  PathNames previous = names;
  previous.names[0] = names.previous_root;
  previous.previous_root = {};
  PathNames current = names;
  current.previous_root = {};
  return {previous, current};
}

/// Writes `key: "$a.b"` straight into the stage.
void put_field_reference(StageList& out, std::string_view key, const PathNames& names) {
  if (!names.previous_root.empty()) {
    // A member renamed in its expand phase: the old name's value where the document has
    // it, else the new name's (a null under the old name reads the new one's here).
    const auto [previous, current] = old_and_new(names);
    const std::uint32_t either = out.open(StageList::document, key);
    const std::uint32_t arguments = out.open(StageList::array, "$ifNull");
    put_field_reference(out, "0", previous);
    put_field_reference(out, "1", current);
    out.close(arguments);
    out.close(either);
    return;
  }
  std::size_t size = names.depth;  // "$" and the dots between the names
  for (std::size_t i = 0; i < names.depth; ++i) size += names.names[i].size();
  char* text = out.put_utf8_uninitialized(key, size);
  *text++ = '$';
  for (std::size_t i = 0; i < names.depth; ++i) {
    if (i > 0) *text++ = '.';
    std::memcpy(text, names.names[i].data(), names.names[i].size());
    text += names.names[i].size();
  }
}

}  // namespace

Document either_name_value(const PathNames& names) {
  // What put_field_reference writes for a renamed member, as a value of its own.
  if (names.previous_root.empty()) throw UsageError("either_name_value of a member that is not renamed");
  const auto [previous, current] = old_and_new(names);
  Document value;
  ChildWriter arguments(value.get_mutable(), "$ifNull", ChildWriter::Kind::array);
  append_utf8(arguments.get(), "0", field_reference(previous));
  append_utf8(arguments.get(), "1", field_reference(current));
  arguments.close();
  return value;
}

namespace {

std::string_view operator_name(agg::Accumulate op) {
  switch (op) {
    case agg::Accumulate::sum: return "$sum";
    case agg::Accumulate::avg: return "$avg";
    case agg::Accumulate::min: return "$min";
    case agg::Accumulate::max: return "$max";
    case agg::Accumulate::first: return "$first";
    case agg::Accumulate::last: return "$last";
    case agg::Accumulate::push: return "$push";
    case agg::Accumulate::add_to_set: return "$addToSet";
    case agg::Accumulate::count: return "$sum";  // {$sum: 1}: also on servers before $count (5.0)
  }
  return "$sum";
}

}  // namespace

StageList::StageList(const StageList& other) : length_(other.length_), count_(other.count_) {
  if (other.length_ > inline_capacity) {
    data_ = static_cast<std::uint8_t*>(std::malloc(other.length_));
    if (data_ == nullptr) {
      data_ = inline_;  // the destructor does not run: nothing to free
      throw std::bad_alloc();
    }
    capacity_ = other.length_;
  }
  std::memcpy(data_, other.data_, other.length_);
}

StageList& StageList::operator=(StageList&& other) noexcept {
  if (this == &other) return *this;
  if (data_ != inline_) std::free(data_);
  take(other);
  return *this;
}

void StageList::take(StageList& other) noexcept {
  length_ = other.length_;
  count_ = other.count_;
  if (other.data_ == other.inline_) {
    data_ = inline_;
    capacity_ = inline_capacity;
    std::memcpy(inline_, other.inline_, length_);
  } else {  // the heap buffer changes hands
    data_ = std::exchange(other.data_, other.inline_);
    capacity_ = std::exchange(other.capacity_, inline_capacity);
  }
  std::memcpy(other.inline_, empty_array, sizeof empty_array);
  other.length_ = sizeof empty_array;
  other.count_ = 0;
}

void StageList::reserve(std::size_t more) {
  constexpr std::size_t max_size = static_cast<std::size_t>(INT32_MAX);  // a BSON length is an int32
  const std::size_t needed = std::size_t{length_} + more;
  if (needed > max_size) throw EncodeError("document exceeds the maximum BSON size");
  const std::size_t capacity = std::min(std::max(needed, std::size_t{capacity_} * 2), max_size);
  if (data_ == inline_) {
    auto* heap = static_cast<std::uint8_t*>(std::malloc(capacity));
    if (heap == nullptr) throw std::bad_alloc();
    std::memcpy(heap, inline_, length_);
    data_ = heap;
  } else {
    auto* heap = static_cast<std::uint8_t*>(std::realloc(data_, capacity));
    if (heap == nullptr) throw std::bad_alloc();
    data_ = heap;
  }
  capacity_ = static_cast<std::uint32_t>(capacity);
}

namespace {
void put_le32(std::uint8_t* at, std::uint32_t value) {
  const std::uint32_t bytes = BSON_UINT32_TO_LE(value);
  std::memcpy(at, &bytes, sizeof bytes);
}
}  // namespace

std::uint8_t* StageList::put_key(Type type, std::string_view key, std::size_t value_size) {
  std::uint8_t* out = grow(1 + key.size() + 1 + value_size);
  *out++ = type;
  std::memcpy(out, key.data(), key.size());
  out += key.size();
  *out++ = 0;
  return out;
}

char* StageList::put_utf8_uninitialized(std::string_view key, std::size_t size) {
  std::uint8_t* out = put_key(utf8, key, 4 + size + 1);
  put_le32(out, static_cast<std::uint32_t>(size + 1));  // the length counts the terminating NUL
  out[4 + size] = 0;
  return reinterpret_cast<char*>(out + 4);
}

void StageList::put_decimal128(std::string_view key, const bson_decimal128_t& value) {
  std::uint8_t* out = put_key(decimal128, key, 16);
  const std::uint64_t low = BSON_UINT64_TO_LE(value.low);
  const std::uint64_t high = BSON_UINT64_TO_LE(value.high);
  std::memcpy(out, &low, 8);
  std::memcpy(out + 8, &high, 8);
}

void StageList::put_embedded(Type type, std::string_view key, const bson_t* value) {
  std::uint8_t* out = put_key(type, key, value->len);
  std::memcpy(out, bson_get_data(value), value->len);
}

std::uint32_t StageList::open(Type type, std::string_view key) {
  put_key(type, key, 4);
  return length_ - 4;
}

void StageList::close(std::uint32_t offset) {
  *grow(1) = 0;
  put_le32(data_ + offset, length_ - offset);
}

void StageList::truncate(std::uint32_t length) noexcept {
  length_ = length;
  data_[length - 1] = 0;  // the array's terminator, which the stage had begun to overwrite
}

StageList::Stage::Stage(StageList& list) : list_(list), start_(list.length_) {
  --list_.length_;  // the stage goes where the array's terminator was
  char buffer[16];
  const char* key = nullptr;
  const std::size_t length = bson_uint32_to_string(list_.count_, &key, buffer, sizeof buffer);
  try {
    document_ = list_.open(document, std::string_view(key, length));
  } catch (...) {  // no room: the destructor does not run, so put the terminator back here
    list_.truncate(start_);
    throw;
  }
}

void StageList::Stage::commit() {
  list_.close(document_);
  *list_.grow(1) = 0;
  put_le32(list_.data_, list_.length_);
  ++list_.count_;
  committed_ = true;
}

void StageList::add_stage_document(const bson_t* stage) {
  const std::uint32_t start = length_;
  try {
    --length_;
    char buffer[16];
    const char* key = nullptr;
    const std::size_t length = bson_uint32_to_string(count_, &key, buffer, sizeof buffer);
    put_embedded(document, std::string_view(key, length), stage);
    *grow(1) = 0;
  } catch (...) {
    truncate(start);
    throw;
  }
  put_le32(data_, length_);
  ++count_;
}

void StageList::add_document(std::string_view op, const bson_t* document) {
  Stage stage(*this);
  put_embedded(StageList::document, op, document);
  stage.commit();
}

void StageList::add_int64(std::string_view op, std::int64_t value) {
  Stage stage(*this);
  put_int64(op, value);
  stage.commit();
}

void StageList::add_string(std::string_view op, std::string_view value) {
  Stage stage(*this);
  put_utf8(op, value);
  stage.commit();
}

void StageList::add_raw(const Document& stage) {
  bson_iter_t it;
  if (!bson_iter_init(&it, stage.get()) || !bson_iter_next(&it) || bson_iter_key(&it)[0] != '$' ||
      bson_iter_next(&it))
    throw ValueError("a stage written by hand is a document with one field named after the stage ($bucket, "
                     "...), not " + [&]() -> std::string {
                       // The stage may be what JSON cannot show (bytes that are not UTF-8, `{$date: 1}`).
                       try {
                         return stage.to_json();
                       } catch (const Error&) {
                         return "a document of " + std::to_string(stage.size()) + " bytes that JSON cannot show";
                       }
                     }());
  add_stage_document(stage.get());
}

void append_group_key(StageList& group, const PathNames* single, std::span<const KeyField> parts) {
  if (single != nullptr) {
    put_field_reference(group, "_id", *single);
  } else if (!parts.empty()) {
    const std::uint32_t key = group.open(StageList::document, "_id");
    for (const KeyField& part : parts) put_field_reference(group, part.name, part.source);
    group.close(key);
  } else {
    group.put_null("_id");
  }
}

namespace {

/// Writes `key: expression` straight into the stage.
void put_expression(StageList& out, std::string_view key, const ExprValue& value) {
  if (!value.reference.empty()) {
    out.put_utf8(key, value.reference);
    return;
  }
  bson_iter_t it;
  bson_t document;
  if (!bson_iter_init_find(&it, value.holder.get(), "v") || !held_document(it, document))
    throw UsageError("an aggregation expression holds no document");
  out.put_embedded(StageList::document, key, &document);
}

/// `into: {$op: operand}` (`{$sum: {$ifNull: [operand, zero]}}` for a typed sum: see
/// SumZero), the operand written by put(key).
template <class Put>
void write_accumulator(StageList& group, std::string_view into, agg::Accumulate op, SumZero zero, Put put) {
  const std::uint32_t accumulator = group.open(StageList::document, into);
  const std::string_view name = operator_name(op);
  if (op == agg::Accumulate::count) {
    group.put_int32(name, 1);
  } else if (op == agg::Accumulate::sum && zero != SumZero::none) {
    const std::uint32_t value = group.open(StageList::document, name);
    const std::uint32_t arguments = group.open(StageList::array, "$ifNull");
    put("0");
    switch (zero) {
      case SumZero::int64: group.put_int64("1", 0); break;
      case SumZero::float64: group.put_double("1", 0.0); break;
      default: {
        bson_decimal128_t decimal_zero;  // 0E0: the coefficient 0 at the biased exponent 6176
        decimal_zero.high = std::uint64_t{6176} << 49;
        decimal_zero.low = 0;
        group.put_decimal128("1", decimal_zero);
      }
    }
    group.close(arguments);
    group.close(value);
  } else {
    put(name);
  }
  group.close(accumulator);
}

}  // namespace

void append_accumulator(StageList& group, std::string_view into, agg::Accumulate op, const PathNames& source,
                        SumZero zero) {
  write_accumulator(group, into, op, zero, [&](std::string_view key) { put_field_reference(group, key, source); });
}

void append_accumulator(StageList& group, std::string_view into, agg::Accumulate op, const ExprValue& source,
                        SumZero zero) {
  write_accumulator(group, into, op, zero, [&](std::string_view key) { put_expression(group, key, source); });
}

void append_group_key(StageList& group, const ExprValue& expression) { put_expression(group, "_id", expression); }

void append_expression(bson_t* out, std::string_view key, const ExprValue& value) {
  if (!value.reference.empty()) {
    append_utf8(out, key, value.reference);
    return;
  }
  bson_iter_t it;
  if (!bson_iter_init_find(&it, value.holder.get(), "v")) throw UsageError("an aggregation expression holds no value");
  check_append(bson_append_iter(out, key.data(), key_length(key), &it));
}

ExprValue operator_expression(std::string_view op, std::initializer_list<const ExprValue*> args, bool single) {
  ExprValue out;
  ChildWriter holder(out.holder.get_mutable(), "v");
  if (single) {
    append_expression(holder.get(), op, **args.begin());
  } else {
    ChildWriter list(holder.get(), op, ChildWriter::Kind::array);
    for (const ExprValue* arg : args) {
      const ArrayKey index(list.next_index());
      append_expression(list.get(), index.view(), *arg);
    }
    list.close();
  }
  holder.close();
  return out;
}

ExprValue date_trunc_expression(const ExprValue& date, std::string_view unit) {
  ExprValue out;
  ChildWriter holder(out.holder.get_mutable(), "v");
  ChildWriter arguments(holder.get(), "$dateTrunc");
  append_expression(arguments.get(), "date", date);
  append_utf8(arguments.get(), "unit", unit);
  arguments.close();
  holder.close();
  return out;
}

ExprValue int32_expression(std::int32_t value) {
  ExprValue out;
  check_append(bson_append_int32(out.holder.get_mutable(), "v", 1, value));
  return out;
}

void append_sort(StageList& stages, const SortExpr& sort) {
  if (sort.opaque) {
    stages.add_document("$sort", sort.opaque->get());
    return;
  }
  stages.write_stage("$sort", [&](StageList& keys) {
    for (const auto& [path, direction] : sort.keys) keys.put_int32(path, direction_value(direction));
  });
}

void append_unwind(StageList& stages, std::string_view path, std::string_view index, bool preserve) {
  const auto put_reference = [&](StageList& out, std::string_view key) {
    char* text = out.put_utf8_uninitialized(key, path.size() + 1);
    text[0] = '$';
    std::memcpy(text + 1, path.data(), path.size());
  };
  if (index.empty() && !preserve) {
    StageList::Stage stage(stages);
    put_reference(stages, "$unwind");
    stage.commit();
    return;
  }
  stages.write_stage("$unwind", [&](StageList& body) {
    put_reference(body, "path");
    if (!index.empty()) body.put_utf8("includeArrayIndex", index);
    if (preserve) body.put_bool("preserveNullAndEmptyArrays", true);
  });
}

void append_facet(bson_t* facets, std::string_view name, const Document& stages) {
  // The stages MongoDB's manual says a $facet's sub-pipeline cannot hold.
  static constexpr std::string_view refused[] = {"$collStats", "$facet",       "$geoNear", "$indexStats",
                                                 "$out",       "$merge",       "$planCacheStats", "$search",
                                                 "$searchMeta", "$vectorSearch", "$changeStream"};
  bson_iter_t stage;
  if (bson_iter_init(&stage, stages.get())) {
    while (bson_iter_next(&stage)) {
      bson_iter_t op;
      if (!BSON_ITER_HOLDS_DOCUMENT(&stage) || !bson_iter_recurse(&stage, &op) || !bson_iter_next(&op)) continue;
      const std::string_view key(bson_iter_key(&op), bson_iter_key_len(&op));
      if (std::find(std::begin(refused), std::end(refused), key) != std::end(refused))
        throw ValueError("the facet `" + std::string(name) + "` holds a " + std::string(key) +
                         " stage, which MongoDB does not run inside a $facet");
    }
  }
  check_append(bson_append_array(facets, name.data(), key_length(name), stages.get()));
}

void check_currency_in_key(const PathNames& amount, const PathNames* single, std::span<const KeyField> parts) {
  // `amount` is the Money's path and "value"; its currency is the same path and "currency".
  const auto is_currency = [&](const PathNames& key) {
    if (key.depth != amount.depth || key.names[key.depth - 1] != "currency") return false;
    for (std::size_t i = 0; i + 1 < key.depth; ++i)
      if (key.names[i] != amount.names[i]) return false;
    return true;
  };
  if (single != nullptr ? is_currency(*single)
                        : std::any_of(parts.begin(), parts.end(), [&](const KeyField& part) { return is_currency(part.source); }))
    return;
  PathNames money = amount;
  --money.depth;
  throw ValueError("this $group sums or averages the odm::Money `" + money.dotted() +
                   "` but its key holds the currency of another Money; group by odm::agg::currency of `" +
                   money.dotted() + "`");
}

void append_assignment(bson_t* set, std::string_view into, const std::string& reference, const Document& literal) {
  if (!reference.empty()) {
    append_utf8(set, into, reference);
    return;
  }
  check_append(bson_append_document(set, into.data(), key_length(into), literal.get()));
}

void append_projected(bson_t* project, std::string_view name, const std::string& reference, const Document& value) {
  if (reference.empty() && value.empty())
    check_append(bson_append_int32(project, name.data(), key_length(name), 1));  // carried through
  else
    append_assignment(project, name, reference, value);
}

}  // namespace odm::detail
