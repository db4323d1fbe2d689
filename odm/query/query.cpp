// The parts of typed queries that do not depend on a model: combining filters and
// updates. Compiled once here instead of in every file that builds queries.
#include <odm/query/filter.hpp>
#include <odm/query/update.hpp>
#include <odm/query/value.hpp>

#include <algorithm>
#include <iterator>

namespace odm::detail {

std::vector<std::string> top_level_keys(const Document& document) {
  std::vector<std::string> keys;
  bson_iter_t it;
  if (bson_iter_init(&it, document.get()))
    while (next(it)) keys.emplace_back(iter_key(it));
  return keys;
}

bool single_key(const Document& document, bson_iter_t& it) {
  if (!bson_iter_init(&it, document.get()) || !next(it)) return false;
  bson_iter_t after = it;
  return !next(after);
}

void collect_operands(const Document& document, std::string_view op, std::vector<Document>& out) {
  bson_iter_t it;
  if (single_key(document, it) && iter_key(it) == op && BSON_ITER_HOLDS_ARRAY(&it)) {
    bson_iter_t item = recurse(it);
    while (next(item)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&item)) throw ValueError(std::string(op) + " holds a non-document");
      std::uint32_t length = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_document(&item, &length, &data);
      bson_t view;
      if (!bson_init_static(&view, data, length)) throw ValueError("malformed " + std::string(op) + " operand");
      out.push_back(Document::copy_of(&view));
    }
    return;
  }
  out.push_back(document);
}

Document logical(std::string_view op, const std::vector<Document>& operands) {
  Document out;
  bson_t array;
  check_append(bson_append_array_begin(out.get_mutable(), op.data(), key_length(op), &array));
  std::uint32_t index = 0;
  for (const auto& operand : operands) {
    const ArrayKey key(index++);
    check_append(bson_append_document(&array, key.view().data(), key_length(key.view()), operand.get()));
  }
  check_append(bson_append_array_end(out.get_mutable(), &array));
  return out;
}

Document and_documents(const Document& a, const Document& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  bson_iter_t it;
  const bool a_is_and = single_key(a, it) && iter_key(it) == "$and";
  const bool b_is_and = single_key(b, it) && iter_key(it) == "$and";
  auto a_keys = top_level_keys(a);
  auto b_keys = top_level_keys(b);
  std::sort(a_keys.begin(), a_keys.end());
  std::sort(b_keys.begin(), b_keys.end());
  std::vector<std::string> common;
  std::set_intersection(a_keys.begin(), a_keys.end(), b_keys.begin(), b_keys.end(), std::back_inserter(common));
  if (common.empty() && !a_is_and && !b_is_and) {
    Document out = a;
    check_append(bson_concat(out.get_mutable(), b.get()));
    return out;
  }
  std::vector<Document> operands;
  collect_operands(a, "$and", operands);
  collect_operands(b, "$and", operands);
  return logical("$and", operands);
}

Document or_documents(const Document& a, const Document& b) {
  if (a.empty() || b.empty()) return Document();  // one side matches everything
  std::vector<Document> operands;
  collect_operands(a, "$or", operands);
  collect_operands(b, "$or", operands);
  return logical("$or", operands);
}

bool is_operator_expression(const bson_iter_t& it) {
  if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return false;
  bson_iter_t child = recurse(it);
  bool any = false;
  while (next(child)) {
    if (bson_iter_key(&child)[0] != '$') return false;
    any = true;
  }
  return any;
}

Document not_document(const Document& document) {
  bson_iter_t it;
  if (single_key(document, it) && bson_iter_key(&it)[0] != '$') {
    const std::string_view key = iter_key(it);
    Document out;
    if (is_operator_expression(it)) {
      bson_iter_t child = recurse(it);
      next(child);
      bson_iter_t after = child;
      if (iter_key(child) == "$not" && !next(after)) {
        // !!condition is the condition.
        check_append(bson_append_iter(out.get_mutable(), key.data(), key_length(key), &child));
        return out;
      }
    }
    if (is_operator_expression(it) || BSON_ITER_HOLDS_REGEX(&it)) {
      bson_t negated;
      check_append(bson_append_document_begin(out.get_mutable(), key.data(), key_length(key), &negated));
      check_append(bson_append_iter(&negated, "$not", 4, &it));
      check_append(bson_append_document_end(out.get_mutable(), &negated));
      return out;
    }
  }
  return logical("$nor", {document});
}

bool has_element_key(const bson_iter_t& it) {
  if (!BSON_ITER_HOLDS_ARRAY(&it)) return false;
  bson_iter_t item = recurse(it);
  while (next(item)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&item)) continue;
    bson_iter_t inner = recurse(item);
    while (next(inner))
      if (bson_iter_key_len(&inner) == 0 || (bson_iter_key(&inner)[0] == '$' && has_element_key(inner))) return true;
  }
  return false;
}

Document element_condition(const Document& filter) {
  bool on_element = false;
  bool on_fields = false;
  Document operators;
  std::vector<std::string> seen;
  const auto add = [&](std::string_view op, const bson_iter_t& value) {
    if (std::find(seen.begin(), seen.end(), op) != seen.end())
      throw ValueError("the element condition uses " + std::string(op) +
                       " twice; MongoDB's operator form can hold each operator once");
    seen.emplace_back(op);
    check_append(bson_append_iter(operators.get_mutable(), op.data(), key_length(op), &value));
  };
  const auto element_clause = [&](const bson_iter_t& it) {
    on_element = true;
    if (is_operator_expression(it)) {
      bson_iter_t child = recurse(it);
      while (next(child)) add(iter_key(child), child);
    } else if (BSON_ITER_HOLDS_REGEX(&it)) {
      // {$regex: "pattern", $options: "i"}: the spelling Extended JSON can carry too.
      const char* options = nullptr;
      const char* pattern = bson_iter_regex(&it, &options);
      Document parts;
      check_append(bson_append_utf8(parts.get_mutable(), "$regex", 6, pattern, -1));
      if (options != nullptr && *options != '\0')
        check_append(bson_append_utf8(parts.get_mutable(), "$options", 8, options, -1));
      bson_iter_t part;
      bson_iter_init(&part, parts.get());
      while (next(part)) add(iter_key(part), part);
    } else {
      add("$eq", it);
    }
  };
  bson_iter_t it;
  if (!bson_iter_init(&it, filter.get())) throw ValueError("malformed element condition");
  while (next(it)) {
    const std::string_view key = iter_key(it);
    if (key.empty()) {
      element_clause(it);
    } else if (key == "$and" && BSON_ITER_HOLDS_ARRAY(&it)) {
      bool all_on_element = true;
      bson_iter_t item = recurse(it);
      while (next(item)) {
        bson_iter_t inner;
        if (!BSON_ITER_HOLDS_DOCUMENT(&item) || !bson_iter_recurse(&item, &inner)) {
          all_on_element = false;
          break;
        }
        while (next(inner))
          if (iter_key(inner).size() != 0) all_on_element = false;
      }
      if (!all_on_element) {
        on_fields = true;
        if (has_element_key(it)) on_element = true;
        continue;
      }
      item = recurse(it);
      while (next(item)) {
        bson_iter_t inner = recurse(item);
        while (next(inner)) element_clause(inner);
      }
    } else {
      on_fields = true;
      if (key.front() == '$' && has_element_key(it)) on_element = true;
    }
  }
  if (on_element && on_fields)
    throw ValueError("an element condition mixes conditions on the element itself with conditions on its "
                     "fields, or combines element conditions with || or !; MongoDB cannot express that");
  return on_element ? operators : filter;
}

}  // namespace odm::detail

namespace odm::detail {

std::vector<UpdateEntry> update_entries(const Document& update) {
  std::vector<UpdateEntry> entries;
  bson_iter_t it;
  if (!bson_iter_init(&it, update.get())) throw ValueError("malformed update document");
  while (next(it)) {
    const std::string op = bson_iter_key(&it);
    if (!BSON_ITER_HOLDS_DOCUMENT(&it))
      throw ValueError("cannot combine updates: `" + op + "` does not hold a document of fields");
    bson_iter_t field = recurse(it);
    while (next(field)) entries.push_back({op, std::string(bson_iter_key(&field), bson_iter_key_len(&field))});
  }
  return entries;
}

bool paths_conflict(std::string_view a, std::string_view b) {
  const auto inside = [](std::string_view outer, std::string_view inner) {
    return inner.size() > outer.size() && inner.substr(0, outer.size()) == outer && inner[outer.size()] == '.';
  };
  return a == b || inside(a, b) || inside(b, a);
}

Document merge_updates(const Document& a, const Document& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  const auto a_entries = update_entries(a);
  const auto b_entries = update_entries(b);
  for (const auto& x : a_entries)
    for (const auto& y : b_entries)
      if (paths_conflict(x.path, y.path))
        throw ValueError("the update changes `" + x.path + "` with " + x.op + " and `" + y.path + "` with " +
                         y.op + "; MongoDB refuses two operators on the same path");
  std::vector<std::string> ops;
  for (const auto* entries : {&a_entries, &b_entries})
    for (const auto& entry : *entries)
      if (std::find(ops.begin(), ops.end(), entry.op) == ops.end()) ops.push_back(entry.op);
  Document out;
  for (const auto& op : ops) {
    bson_t fields;
    check_append(bson_append_document_begin(out.get_mutable(), op.c_str(), key_length(op), &fields));
    for (const Document* source : {&a, &b}) {
      bson_iter_t it;
      if (bson_iter_init_find_w_len(&it, source->get(), op.data(), key_length(op))) {
        bson_iter_t field = recurse(it);
        while (next(field))
          check_append(bson_append_iter(&fields, bson_iter_key(&field), static_cast<int>(bson_iter_key_len(&field)),
                                        &field));
      }
    }
    check_append(bson_append_document_end(out.get_mutable(), &fields));
  }
  return out;
}

}  // namespace odm::detail

namespace odm::detail {

std::string PathNames::dotted(bool nested) const {
  std::string out;
  for (std::size_t i = 0; i < depth; ++i) {
    if (i != 0) out += '.';
    out += (i == 0 && nested) ? first_nested : names[i];
  }
  return out;
}

}  // namespace odm::detail
