// The non-template half of the typed pipeline (include/odm/aggregation/): writing stages.

#include <odm/aggregation/group.hpp>
#include <odm/aggregation/pipeline.hpp>

#include <algorithm>
#include <string>

namespace odm::detail {

std::string field_reference(const PathNames& names) { return "$" + names.dotted(); }

namespace {

void append_utf8(bson_t* out, std::string_view key, std::string_view value) {
  check_append(bson_append_utf8(out, key.data(), key_length(key), value.data(), key_length(value)));
}

/// Appends `key: "$a.b"`, composed on the stack when it is short (it nearly always is).
void append_field_reference(bson_t* out, std::string_view key, const PathNames& names) {
  if (!names.previous_root.empty()) {
    // A member renamed in its expand phase: the old name's value where the document has
    // it, else the new name's (a null under the old name reads the new one's here).
    PathNames previous = names;
    previous.names[0] = names.previous_root;
    previous.previous_root = {};
    PathNames current = names;
    current.previous_root = {};
    ChildWriter either(out, key);
    ChildWriter arguments(either.get(), "$ifNull", ChildWriter::Kind::array);
    append_field_reference(arguments.get(), "0", previous);
    append_field_reference(arguments.get(), "1", current);
    arguments.close();
    either.close();
    return;
  }
  char buffer[128];
  std::size_t length = 0;
  const auto put = [&](std::string_view text) {
    if (length + text.size() <= sizeof buffer) text.copy(buffer + length, text.size());
    length += text.size();
  };
  put("$");
  for (std::size_t i = 0; i < names.depth; ++i) {
    if (i > 0) put(".");
    put(names.names[i]);
  }
  if (length <= sizeof buffer)
    append_utf8(out, key, std::string_view(buffer, length));
  else
    append_utf8(out, key, field_reference(names));
}

}  // namespace

Document either_name_value(const PathNames& names) {
  // The element `x: {$ifNull: [...]}` as append_field_reference writes it, then its value.
  Document holder;
  append_field_reference(holder.get_mutable(), "x", names);
  bson_iter_t it;
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  if (!bson_iter_init_find(&it, holder.get(), "x") || !BSON_ITER_HOLDS_DOCUMENT(&it))
    throw UsageError("odm: an assignment of a renamed member could not be written");
  bson_iter_document(&it, &length, &data);
  bson_t value;
  if (!bson_init_static(&value, data, length)) throw UsageError("odm: an assignment of a renamed member could not be written");
  return Document::copy_of(&value);
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

void StageList::add_document(std::string_view op, const bson_t* document) {
  add(op, [&](bson_t* stage, std::string_view key) {
    check_append(bson_append_document(stage, key.data(), key_length(key), document));
  });
}

void StageList::add_int64(std::string_view op, std::int64_t value) {
  add(op, [&](bson_t* stage, std::string_view key) {
    check_append(bson_append_int64(stage, key.data(), key_length(key), value));
  });
}

void StageList::add_string(std::string_view op, std::string_view value) {
  add(op, [&](bson_t* stage, std::string_view key) { append_utf8(stage, key, value); });
}

void StageList::add_raw(const Document& stage) {
  bson_iter_t it;
  if (!bson_iter_init(&it, stage.get()) || !bson_iter_next(&it) || bson_iter_key(&it)[0] != '$' ||
      bson_iter_next(&it))
    throw ValueError("odm: a stage written by hand is a document with one field named after the stage ($bucket, "
                     "...), not " + stage.to_json());
  char buffer[16];
  const char* key = nullptr;
  const std::size_t length = bson_uint32_to_string(count_, &key, buffer, sizeof buffer);
  check_append(bson_append_document(stages_.get_mutable(), key, static_cast<int>(length), stage.get()));
  ++count_;
}

void append_group_key(bson_t* group, const PathNames* single, std::span<const KeyField> parts) {
  if (single != nullptr) {
    append_field_reference(group, "_id", *single);
  } else if (!parts.empty()) {
    ChildWriter key(group, "_id");
    for (const KeyField& part : parts) append_field_reference(key.get(), part.name, part.source);
    key.close();
  } else {
    check_append(bson_append_null(group, "_id", 3));
  }
}

void append_accumulator(bson_t* group, std::string_view into, agg::Accumulate op, const PathNames& source,
                        SumZero zero) {
  ChildWriter accumulator(group, into);
  const std::string_view name = operator_name(op);
  if (op == agg::Accumulate::count) {
    check_append(bson_append_int32(accumulator.get(), name.data(), key_length(name), 1));
  } else if (op == agg::Accumulate::sum && zero != SumZero::none) {
    // {$sum: {$ifNull: ["$f", zero]}}: see SumZero.
    ChildWriter value(accumulator.get(), name);
    ChildWriter arguments(value.get(), "$ifNull", ChildWriter::Kind::array);
    append_field_reference(arguments.get(), "0", source);
    switch (zero) {
      case SumZero::int64: check_append(bson_append_int64(arguments.get(), "1", 1, 0)); break;
      case SumZero::float64: check_append(bson_append_double(arguments.get(), "1", 1, 0.0)); break;
      default: {
        bson_decimal128_t decimal_zero;  // 0E0: the coefficient 0 at the biased exponent 6176
        decimal_zero.high = std::uint64_t{6176} << 49;
        decimal_zero.low = 0;
        check_append(bson_append_decimal128(arguments.get(), "1", 1, &decimal_zero));
      }
    }
    arguments.close();
    value.close();
  } else {
    append_field_reference(accumulator.get(), name, source);
  }
  accumulator.close();
}

void append_unwind(StageList& stages, std::string_view path, std::string_view index, bool preserve) {
  char buffer[128];
  std::string long_reference;
  std::string_view reference;
  if (path.size() + 1 <= sizeof buffer) {
    buffer[0] = '$';
    path.copy(buffer + 1, path.size());
    reference = std::string_view(buffer, path.size() + 1);
  } else {
    long_reference = "$" + std::string(path);
    reference = long_reference;
  }
  if (index.empty() && !preserve) {
    stages.add_string("$unwind", reference);
    return;
  }
  stages.add("$unwind", [&](bson_t* stage, std::string_view op) {
    ChildWriter body(stage, op);
    append_utf8(body.get(), "path", reference);
    if (!index.empty()) append_utf8(body.get(), "includeArrayIndex", index);
    if (preserve) check_append(bson_append_bool(body.get(), "preserveNullAndEmptyArrays", 26, true));
    body.close();
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
        throw ValueError("odm: the facet `" + std::string(name) + "` holds a " + std::string(key) +
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
  throw ValueError("odm: this $group sums or averages the odm::Money `" + money.dotted() +
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

}  // namespace odm::detail
