#pragma once
// A $jsonSchema check in C++, independent of the test server's (tests/server/odm_schema.py),
// written from MongoDB's manual for the keywords odm emits: bsonType (with "number"),
// enum, required, properties, additionalProperties (false or a schema), items, anyOf.
// Keywords restrict only values of the type they are about (`properties` only objects).
// Any other keyword fails the check loudly, so a schema odm starts emitting with a new
// keyword cannot pass unchecked.

#include <bson/bson.h>

#include <odm/bson/codec.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace odm_test {

namespace schema_detail {

inline bool type_matches(std::string_view alias, bson_type_t type) {
  if (alias == "number")
    return type == BSON_TYPE_INT32 || type == BSON_TYPE_INT64 || type == BSON_TYPE_DOUBLE ||
           type == BSON_TYPE_DECIMAL128;
  return alias == odm::detail::bson_type_name(type);
}

inline bool sub_iter(const bson_iter_t& it, bson_iter_t& child) {
  return (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) && bson_iter_recurse(&it, &child);
}

inline std::string utf8_of(const bson_iter_t& it) {
  std::uint32_t length = 0;
  const char* data = bson_iter_utf8(&it, &length);
  return std::string(data, length);
}

/// Appends to `out` what `value` (an element) breaks in `schema` (an iterator over the
/// schema's keywords), with `path` naming the value.
inline void check(bson_iter_t schema, const bson_iter_t& value, const std::string& path,
                  std::vector<std::string>& out) {
  const bson_type_t type = bson_iter_type(&value);
  // properties, so that additionalProperties knows them.
  std::vector<std::string> declared;
  bson_iter_t scan = schema;
  while (bson_iter_next(&scan)) {
    if (std::string_view(bson_iter_key(&scan)) != "properties") continue;
    bson_iter_t property;
    if (sub_iter(scan, property))
      while (bson_iter_next(&property)) declared.emplace_back(bson_iter_key(&property));
  }
  while (bson_iter_next(&schema)) {
    const std::string_view keyword = bson_iter_key(&schema);
    if (keyword == "bsonType") {
      bool ok = false;
      if (BSON_ITER_HOLDS_UTF8(&schema)) {
        ok = type_matches(utf8_of(schema), type);
      } else {
        bson_iter_t alias;
        if (sub_iter(schema, alias))
          while (bson_iter_next(&alias)) ok = ok || (BSON_ITER_HOLDS_UTF8(&alias) && type_matches(utf8_of(alias), type));
      }
      if (!ok) out.push_back(path + ": bsonType is " + std::string(odm::detail::bson_type_name(type)));
    } else if (keyword == "enum") {
      bool found = false;
      bson_iter_t candidate;
      if (sub_iter(schema, candidate))
        while (bson_iter_next(&candidate)) {
          if (bson_iter_type(&candidate) != type) continue;
          if (type == BSON_TYPE_NULL || (type == BSON_TYPE_UTF8 && utf8_of(candidate) == utf8_of(value))) found = true;
        }
      if (!found) out.push_back(path + ": not in enum");
    } else if (keyword == "required") {
      if (type != BSON_TYPE_DOCUMENT) continue;
      bson_iter_t name;
      if (sub_iter(schema, name))
        while (bson_iter_next(&name)) {
          bson_iter_t field;
          if (!bson_iter_recurse(&value, &field) || !bson_iter_find(&field, utf8_of(name).c_str()))
            out.push_back(path + "." + utf8_of(name) + ": required, missing");
        }
    } else if (keyword == "properties") {
      if (type != BSON_TYPE_DOCUMENT) continue;
      bson_iter_t property;
      if (!sub_iter(schema, property)) continue;
      while (bson_iter_next(&property)) {
        bson_iter_t field, property_schema;
        if (bson_iter_recurse(&value, &field) && bson_iter_find(&field, bson_iter_key(&property)) &&
            sub_iter(property, property_schema))
          check(property_schema, field, path + "." + bson_iter_key(&property), out);
      }
    } else if (keyword == "additionalProperties") {
      if (type != BSON_TYPE_DOCUMENT) continue;
      bson_iter_t field, rule;
      if (!bson_iter_recurse(&value, &field)) continue;
      while (bson_iter_next(&field)) {
        if (std::find(declared.begin(), declared.end(), bson_iter_key(&field)) != declared.end()) continue;
        if (BSON_ITER_HOLDS_BOOL(&schema)) {
          if (!bson_iter_bool(&schema)) out.push_back(path + "." + bson_iter_key(&field) + ": not declared");
        } else if (sub_iter(schema, rule)) {
          check(rule, field, path + "." + bson_iter_key(&field), out);
        }
      }
    } else if (keyword == "items") {
      if (type != BSON_TYPE_ARRAY) continue;
      bson_iter_t element, rule;
      if (!bson_iter_recurse(&value, &element) || !BSON_ITER_HOLDS_DOCUMENT(&schema)) continue;
      while (bson_iter_next(&element))
        if (sub_iter(schema, rule)) check(rule, element, path + "." + bson_iter_key(&element), out);
    } else if (keyword == "anyOf") {
      bson_iter_t alternative, rule;
      bool any = false;
      if (sub_iter(schema, alternative))
        while (!any && bson_iter_next(&alternative)) {
          std::vector<std::string> failures;
          if (sub_iter(alternative, rule)) check(rule, value, path, failures);
          any = failures.empty();
        }
      if (!any) out.push_back(path + ": no anyOf alternative matches");
    } else {
      out.push_back(path + ": the check does not know the keyword " + std::string(keyword));
    }
  }
}

}  // namespace schema_detail

/// What `document` breaks in `schema` (a $jsonSchema), one line each; empty when it passes.
inline std::vector<std::string> schema_violations(const bson_t* schema, const bson_t* document) {
  // The document as the value of a field, so that the check sees it as an object.
  bson_t holder;
  bson_init(&holder);
  bson_append_document(&holder, "$", 1, document);
  bson_iter_t value, rules;
  std::vector<std::string> out;
  if (bson_iter_init_find(&value, &holder, "$") && bson_iter_init(&rules, schema))
    schema_detail::check(rules, value, "$", out);
  else
    out.emplace_back("not valid BSON");
  bson_destroy(&holder);
  return out;
}

}  // namespace odm_test
