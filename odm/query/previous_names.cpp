// Typed filters and updates over renamed members in their expand phase (previous_names.hpp).

#include "query/update_paths.hpp"

#include <odm/bson/writer.hpp>
#include <odm/error.hpp>
#include <odm/query/previous_names.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace odm::detail {

namespace {
/// Whether `path` is `prefix` or a path inside it.
bool starts_path(std::string_view path, std::string_view prefix) {
  return path.size() >= prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
         (path.size() == prefix.size() || path[prefix.size()] == '.');
}
}  // namespace

const NamePair* renamed_root(std::string_view path, const NamePair* pairs, std::size_t count, std::string_view& rest) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::string name = pairs[i].path(pairs[i].name);
    if (!starts_path(path, name)) continue;
    // A member renamed inside a member renamed itself has four stored paths (v1's
    // `house.road` is read as `home.street`): one rewrite per path cannot address them.
    for (std::size_t j = 0; j < count && pairs[i].parent.empty(); ++j) {
      if (j == i || pairs[j].parent != pairs[i].name) continue;
      const std::string inner = pairs[j].path(pairs[j].name);
      if (starts_path(path, inner))
        throw UsageError("the path \"" + std::string(path) + "\" reaches `" + inner +
                         "`, a member renamed (odm::renamed_from \"" + std::string(pairs[j].previous) +
                         "\") inside `" + name + "`, itself renamed (from \"" + std::string(pairs[i].previous) +
                         "\"): typed filters and updates address one renamed member per path, and a document may "
                         "hold this value under four paths. Run the contract Migration of one of the two renames "
                         "(odm::rename_field) first, or address the outer member whole");
    }
    rest = path.substr(name.size());
    return &pairs[i];
  }
  return nullptr;
}

namespace {

/// A positional step (`$`, `$[]`, `$[id]`) inside a renamed member cannot be sent: a
/// document holds either name or both, and MongoDB refuses the step on a path the
/// document lacks (and records no matched position through the filter's `$or`).
void refuse_positional(std::string_view path, std::string_view rest, const NamePair& pair) {
  if (rest.find(".$") == std::string_view::npos) return;
  throw UsageError("the update path \"" + std::string(path) + "\" has a positional step inside `" +
                   pair.path(pair.name) + "`, a member renamed in its expand phase (odm::renamed_from \"" +
                   std::string(pair.previous) +
                   "\"): a document may hold either name, and one update cannot address an element of both arrays. "
                   "Set the whole member instead (field(&T::member).set(value), or a tracked save), or run the "
                   "contract Migration (odm::rename_field) first");
}

/// Calls fn(path) for each path of each operator of `update`.
template <class Fn>
void for_each_update_path(const bson_t* update, Fn&& fn) {
  bson_iter_t op;
  bson_iter_init(&op, update);
  while (bson_iter_next(&op)) {
    bson_iter_t paths;
    if (!BSON_ITER_HOLDS_DOCUMENT(&op) || !bson_iter_recurse(&op, &paths)) continue;
    while (bson_iter_next(&paths)) fn(std::string_view(bson_iter_key(&paths), bson_iter_key_len(&paths)));
  }
}

/// The renamed member inside `path` when `path` is one of its ancestors (`box` for
/// `box.label`), else nullptr.
const NamePair* renamed_inside(std::string_view path, const NamePair* pairs, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    if (const std::string name = pairs[i].path(pairs[i].name); name.size() > path.size() && starts_path(name, path))
      return &pairs[i];
  return nullptr;
}

/// Whether a condition (`value`, `{$eq: value}`, `{$in: [...]}`, `{$not: ...}`, ...)
/// compares a whole sub-document: a document that is not an operator document, at any depth.
bool compares_documents(const bson_iter_t& condition, int depth) {
  if (depth > 100) return true;
  bson_iter_t inner;
  if (BSON_ITER_HOLDS_ARRAY(&condition)) {
    if (!bson_iter_recurse(&condition, &inner)) return false;
    while (bson_iter_next(&inner))
      if (compares_documents(inner, depth + 1)) return true;
    return false;
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(&condition) || !bson_iter_recurse(&condition, &inner)) return false;
  if (!bson_iter_next(&inner) || bson_iter_key(&inner)[0] != '$') return true;  // `{}` or `{label: ...}`
  do {
    if (compares_documents(inner, depth + 1)) return true;
  } while (bson_iter_next(&inner));
  return false;
}

/// A condition comparing the whole parent of a renamed member (`box == Box{...}`) compares
/// stored bytes, so it would match only the documents whose box holds the new name (and
/// in v2's order): refused, as a sort on the member is.
void refuse_whole_parent(std::string_view key, const bson_iter_t& condition, const NamePair* pairs, std::size_t count) {
  const NamePair* inside = renamed_inside(key, pairs, count);
  if (inside == nullptr || !compares_documents(condition, 0)) return;
  throw UsageError("the filter compares the whole sub-document \"" + std::string(key) + "\", which holds `" +
                   inside->path(inside->name) + "`, a member renamed in its expand phase (odm::renamed_from \"" +
                   std::string(inside->previous) +
                   "\"): a document may hold either name, so comparing stored sub-documents would miss those "
                   "the other release wrote. Compare the members instead (field(&T::parent) / &P::member == value, "
                   "joined with &&), or run the contract Migration (odm::rename_field) first");
}

void append_key(bson_t* out, std::string_view key, bson_iter_t* value) {
  check_append(bson_append_iter(out, key.data(), static_cast<int>(key.size()), value));
}

void rewrite_filter(const bson_t* filter, bson_t* out, const NamePair* pairs, std::size_t count, int depth);

/// An array of filters (`$and`, `$or`, `$nor`), each rewritten.
void rewrite_filter_list(bson_iter_t& it, bson_t* out, const NamePair* pairs, std::size_t count, int depth) {
  bson_iter_t list;
  if (!BSON_ITER_HOLDS_ARRAY(&it) || !bson_iter_recurse(&it, &list)) {
    append_key(out, bson_iter_key(&it), &it);
    return;
  }
  ChildWriter array(out, bson_iter_key(&it), ChildWriter::Kind::array);
  while (bson_iter_next(&list)) {
    const std::string index = std::to_string(array.next_index());
    bson_t element;
    std::uint32_t length = 0;
    const std::uint8_t* data = nullptr;
    if (!BSON_ITER_HOLDS_DOCUMENT(&list)) {
      append_key(array.get(), index, &list);
      continue;
    }
    bson_iter_document(&list, &length, &data);
    if (!bson_init_static(&element, data, length)) throw ValueError("a filter holds a corrupt sub-document");
    ChildWriter child(array.get(), index);
    rewrite_filter(&element, child.get(), pairs, count, depth + 1);
    child.close();
  }
  array.close();
}

void rewrite_filter(const bson_t* filter, bson_t* out, const NamePair* pairs, std::size_t count, int depth) {
  if (depth > 100) throw ValueError("a filter nests deeper than MongoDB's 100 levels");
  std::vector<Document> alternatives;
  bson_iter_t it;
  bson_iter_init(&it, filter);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (key == "$and" || key == "$or" || key == "$nor") {
      rewrite_filter_list(it, out, pairs, count, depth);
      continue;
    }
    std::string_view rest;
    const NamePair* pair = key.empty() || key.front() == '$' ? nullptr : renamed_root(key, pairs, count, rest);
    if (!pair) {
      if (!key.empty() && key.front() != '$') refuse_whole_parent(key, it, pairs, count);
      append_key(out, key, &it);
      continue;
    }
    // {$or: [{$and: [{previous: {$exists: true}}, {previous...: c}]}, {previous: {$exists: false}, name...: c}]}:
    // each branch holds only where its name is the one read, so a negated condition
    // (`$ne`, `$not`, `$exists: false`) is negated within the name read, never across both.
    const std::string previous_root = pair->path(pair->previous);
    const std::string previous = previous_root + std::string(rest);
    Document either;
    {
      ChildWriter any(either.get_mutable(), "$or", ChildWriter::Kind::array);
      {
        ChildWriter old(any.get(), "0");
        ChildWriter both(old.get(), "$and", ChildWriter::Kind::array);
        {
          ChildWriter present(both.get(), "0");
          ChildWriter exists(present.get(), previous_root);
          check_append(bson_append_bool(exists.get(), "$exists", 7, true));
          exists.close();
          present.close();
        }
        {
          ChildWriter condition(both.get(), "1");
          append_key(condition.get(), previous, &it);
          condition.close();
        }
        both.close();
        old.close();
      }
      {
        ChildWriter fresh(any.get(), "1");
        ChildWriter absent(fresh.get(), previous_root);
        check_append(bson_append_bool(absent.get(), "$exists", 7, false));
        absent.close();
        append_key(fresh.get(), key, &it);
        fresh.close();
      }
      any.close();
    }
    alternatives.push_back(std::move(either));
  }
  if (alternatives.empty()) return;
  // Several renamed conditions (or one next to a `$or` of the filter's own): each its own `$and` clause.
  ChildWriter all(out, "$and", ChildWriter::Kind::array);
  for (const Document& clause : alternatives)
    check_append(bson_append_document(all.get(), std::to_string(all.next_index()).c_str(), -1, clause.get()));
  all.close();
}

}  // namespace

Document filter_with_previous_names(const bson_t* filter, const NamePair* pairs, std::size_t count) {
  Document out;
  rewrite_filter(filter, out.get_mutable(), pairs, count, 0);
  // A filter that had its own top-level `$and` next to a renamed condition would now hold
  // two: merge them by nesting the whole.
  bson_iter_t it;
  int ands = 0;
  bson_iter_init(&it, out.get());
  while (bson_iter_next(&it))
    if (std::string_view(bson_iter_key(&it)) == "$and") ++ands;
  if (ands < 2) return out;
  Document nested;
  ChildWriter all(nested.get_mutable(), "$and", ChildWriter::Kind::array);
  bson_iter_init(&it, out.get());
  Document rest;
  while (bson_iter_next(&it)) {
    if (std::string_view(bson_iter_key(&it)) != "$and") {
      append_key(rest.get_mutable(), bson_iter_key(&it), &it);
      continue;
    }
    bson_iter_t clauses;
    bson_iter_recurse(&it, &clauses);
    while (bson_iter_next(&clauses))
      append_key(all.get(), std::to_string(all.next_index()), &clauses);
  }
  if (!rest.empty())
    check_append(bson_append_document(all.get(), std::to_string(all.next_index()).c_str(), -1, rest.get()));
  all.close();
  return nested;
}

Document update_with_previous_names(const bson_t* update, const NamePair* pairs, std::size_t count) {
  Document out;
  bson_iter_t op;
  bson_iter_init(&op, update);
  while (bson_iter_next(&op)) {
    const std::string_view name(bson_iter_key(&op), bson_iter_key_len(&op));
    bson_iter_t paths;
    if (name.empty() || name.front() != '$' || !BSON_ITER_HOLDS_DOCUMENT(&op) || !bson_iter_recurse(&op, &paths)) {
      append_key(out.get_mutable(), name, &op);
      continue;
    }
    bson_iter_t probe = paths;
    std::vector<std::string> present;
    while (bson_iter_next(&probe)) present.emplace_back(bson_iter_key(&probe), bson_iter_key_len(&probe));
    ChildWriter body(out.get_mutable(), name);
    while (bson_iter_next(&paths)) {
      const std::string_view path(bson_iter_key(&paths), bson_iter_key_len(&paths));
      append_key(body.get(), path, &paths);
      std::string_view rest;
      const NamePair* pair = renamed_root(path, pairs, count, rest);
      if (!pair) continue;
      refuse_positional(path, rest, *pair);
      const std::string previous = pair->path(pair->previous) + std::string(rest);
      bool named = false;
      for (const std::string& p : present) named = named || p == previous;
      if (!named) append_key(body.get(), previous, &paths);
    }
    body.close();
  }
  return out;
}

Document whole_renamed_members(const bson_t* update, const bson_t* current, const NamePair* pairs, std::size_t count) {
  // Which pairs a path of the update touches, under either name.
  std::vector<bool> touched(count, false);
  const auto touching = [&](std::string_view path) {
    for (std::size_t i = 0; i < count; ++i)
      for (const std::string_view name : {pairs[i].name, pairs[i].previous})
        if (starts_path(path, pairs[i].path(name))) return static_cast<std::ptrdiff_t>(i);
    return std::ptrdiff_t{-1};
  };
  for_each_update_path(update, [&](std::string_view path) {
    const std::ptrdiff_t i = touching(path);
    if (i >= 0) touched[static_cast<std::size_t>(i)] = true;
  });
  if (std::find(touched.begin(), touched.end(), true) == touched.end()) return Document::copy_of(update);
  // The whole members, as the object holds them now, under both names (or unset under both).
  Document set;
  Document unset;
  for (std::size_t i = 0; i < count; ++i) {
    if (!touched[i]) continue;
    bson_iter_t top;
    bson_iter_t value;
    const std::string path = pairs[i].path(pairs[i].name);
    const bool present = bson_iter_init(&top, current) && bson_iter_find_descendant(&top, path.c_str(), &value);
    for (const std::string_view name : {pairs[i].name, pairs[i].previous}) {
      const std::string target = pairs[i].path(name);
      if (present)
        append_key(set.get_mutable(), target, &value);
      else
        check_append(bson_append_utf8(unset.get_mutable(), target.data(), static_cast<int>(target.size()), "", 0));
    }
  }
  Document out;
  bool set_written = false;
  bool unset_written = false;
  bson_iter_t op;
  bson_iter_init(&op, update);
  while (bson_iter_next(&op)) {
    const std::string_view name(bson_iter_key(&op), bson_iter_key_len(&op));
    bson_iter_t paths;
    if (!BSON_ITER_HOLDS_DOCUMENT(&op) || !bson_iter_recurse(&op, &paths)) {
      append_key(out.get_mutable(), name, &op);
      continue;
    }
    Document body;
    while (bson_iter_next(&paths))
      if (touching(std::string_view(bson_iter_key(&paths), bson_iter_key_len(&paths))) < 0)
        append_key(body.get_mutable(), std::string_view(bson_iter_key(&paths), bson_iter_key_len(&paths)), &paths);
    const Document* extra = name == "$set" ? &set : name == "$unset" ? &unset : nullptr;
    if (extra != nullptr) {
      (name == "$set" ? set_written : unset_written) = true;
      bson_iter_t more;
      bson_iter_init(&more, extra->get());
      while (bson_iter_next(&more))
        append_key(body.get_mutable(), std::string_view(bson_iter_key(&more), bson_iter_key_len(&more)), &more);
    }
    if (!body.empty())
      check_append(bson_append_document(out.get_mutable(), name.data(), static_cast<int>(name.size()), body.get()));
  }
  if (!set_written && !set.empty()) check_append(bson_append_document(out.get_mutable(), "$set", 4, set.get()));
  if (!unset_written && !unset.empty()) check_append(bson_append_document(out.get_mutable(), "$unset", 6, unset.get()));
  return out;
}

namespace {

/// The equality conditions on renamed members in `filter` (and its `$and` lists), each
/// appended to `seeds` under both names.
void collect_seeds(const bson_t* filter, bson_t* seeds, const NamePair* pairs, std::size_t count, int depth) {
  if (depth > 100) return;
  bson_iter_t it;
  bson_iter_init(&it, filter);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    bson_iter_t list;
    if (key == "$and" && BSON_ITER_HOLDS_ARRAY(&it) && bson_iter_recurse(&it, &list)) {
      while (bson_iter_next(&list)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&list)) continue;
        std::uint32_t length = 0;
        const std::uint8_t* data = nullptr;
        bson_iter_document(&list, &length, &data);
        bson_t clause;
        if (bson_init_static(&clause, data, length)) collect_seeds(&clause, seeds, pairs, count, depth + 1);
      }
      continue;
    }
    std::string_view rest;
    const NamePair* pair = key.empty() || key.front() == '$' ? nullptr : renamed_root(key, pairs, count, rest);
    if (pair == nullptr) continue;
    // The value: a plain one, a sub-document without operators, or `{$eq: v}`.
    bson_iter_t value = it;
    bson_iter_t inner;
    if (BSON_ITER_HOLDS_DOCUMENT(&it) && bson_iter_recurse(&it, &inner) && bson_iter_next(&inner) &&
        bson_iter_key(&inner)[0] == '$') {
      if (std::string_view(bson_iter_key(&inner)) != "$eq") continue;
      value = inner;
    }
    append_key(seeds, key, &value);
    append_key(seeds, pair->path(pair->previous) + std::string(rest), &value);
  }
}

}  // namespace

Document seed_previous_names(const bson_t* update, const bson_t* filter, const NamePair* pairs, std::size_t count) {
  Document seeds;
  collect_seeds(filter, seeds.get_mutable(), pairs, count, 0);
  if (seeds.empty()) return Document::copy_of(update);
  // A seed the update writes itself (the same path, one above it or one inside it) is
  // left to the update: MongoDB refuses an update writing two overlapping paths. Siblings
  // (`box.size` beside a seed of `box.label`) are not overlapping, and the seed stays.
  Document kept;
  bson_iter_t seed;
  bson_iter_init(&seed, seeds.get());
  while (bson_iter_next(&seed)) {
    const std::string_view path(bson_iter_key(&seed), bson_iter_key_len(&seed));
    if (!writes_overlapping(update, path)) append_key(kept.get_mutable(), path, &seed);
  }
  if (kept.empty()) return Document::copy_of(update);
  return with_fields_added_to(update, "$setOnInsert", kept.get());
}

}  // namespace odm::detail
