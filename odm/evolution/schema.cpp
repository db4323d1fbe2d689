#include <odm/evolution/schema.hpp>

#include <odm/bson/writer.hpp>
#include <odm/driver/errors.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace odm {

std::string_view to_string(ValidationLevel level) noexcept {
  switch (level) {
    case ValidationLevel::strict: return "strict";
    case ValidationLevel::moderate: return "moderate";
    case ValidationLevel::off: return "off";
  }
  return "?";
}

std::string_view to_string(ValidationAction action) noexcept {
  switch (action) {
    case ValidationAction::error: return "error";
    case ValidationAction::warn: return "warn";
  }
  return "?";
}

namespace detail {

namespace {

void append_string(bson_t* out, std::string_view key, std::string_view value) {
  check_append(bson_append_utf8(out, key.data(), key_length(key), value.data(), static_cast<int>(value.size())));
}

void append_strings(bson_t* out, std::string_view key, const std::vector<std::string>& values, bool with_null = false) {
  ChildWriter array(out, key, ChildWriter::Kind::array);
  for (const std::string& value : values) {
    const ArrayKey index(array.next_index());
    append_string(array.get(), index.view(), value);
  }
  if (with_null) {
    const ArrayKey index(array.next_index());
    check_append(bson_append_null(array.get(), index.view().data(), key_length(index.view())));
  }
  array.close();
}

void write_node(bson_t* out, const SchemaNode& node) {
  if (node.bson_types.size() == 1)
    append_string(out, "bsonType", node.bson_types.front());
  else if (!node.bson_types.empty())
    append_strings(out, "bsonType", node.bson_types);
  if (!node.enum_values.empty()) append_strings(out, "enum", node.enum_values, node.enum_with_null);
  if (!node.required.empty()) append_strings(out, "required", node.required);
  if (!node.property_names.empty()) {
    ChildWriter properties(out, "properties");
    for (std::size_t i = 0; i < node.property_names.size(); ++i) {
      ChildWriter property(properties.get(), node.property_names[i]);
      write_node(property.get(), node.property_schemas[i]);
      property.close();
    }
    properties.close();
  }
  if (node.additional_properties)
    check_append(bson_append_bool(out, "additionalProperties", 20, *node.additional_properties));
  if (node.additional_schema) {
    ChildWriter additional(out, "additionalProperties");
    write_node(additional.get(), *node.additional_schema);
    additional.close();
  }
  if (node.items) {
    ChildWriter items(out, "items");
    write_node(items.get(), *node.items);
    items.close();
  }
  if (!node.any_of.empty()) {
    ChildWriter any_of(out, "anyOf", ChildWriter::Kind::array);
    for (const SchemaNode& alternative : node.any_of) {
      const ArrayKey index(any_of.next_index());
      ChildWriter element(any_of.get(), index.view());
      write_node(element.get(), alternative);
      element.close();
    }
    any_of.close();
  }
}

/// Only a type (or types): no keyword that looks inside the value.
bool is_bare(const SchemaNode& node) {
  return !node.bson_types.empty() && node.enum_values.empty() && node.required.empty() && node.property_names.empty() &&
         !node.additional_properties && !node.additional_schema && !node.items && node.any_of.empty();
}

}  // namespace

void SchemaNode::allow_null() {
  const auto has_null = [](const std::vector<std::string>& types) {
    return std::find(types.begin(), types.end(), "null") != types.end();
  };
  if (bson_types.empty()) {  // an anyOf
    if (std::none_of(any_of.begin(), any_of.end(), [&](const SchemaNode& node) { return has_null(node.bson_types); })) {
      SchemaNode null;
      null.bson_types = {"null"};
      any_of.push_back(std::move(null));
    }
    return;
  }
  if (!has_null(bson_types)) bson_types.emplace_back("null");
  // `enum` lists every value the field may hold, null included.
  if (!enum_values.empty()) enum_with_null = true;
}

Document SchemaNode::to_document() const {
  Document out;
  write_node(out.get_mutable(), *this);
  return out;
}

SchemaNode one_of_schema(std::vector<SchemaNode> alternatives) {
  SchemaNode node;
  if (std::all_of(alternatives.begin(), alternatives.end(), is_bare)) {
    for (const SchemaNode& alternative : alternatives)
      for (const std::string& type : alternative.bson_types)
        if (std::find(node.bson_types.begin(), node.bson_types.end(), type) == node.bson_types.end())
          node.bson_types.push_back(type);
    return node;
  }
  node.any_of = std::move(alternatives);
  return node;
}

}  // namespace detail

namespace {

/// One value as relaxed Extended JSON: "decimal", ["a","b"], {...}.
std::string value_json(const bson_iter_t& it) {
  Document holder;
  detail::check_append(bson_append_iter(holder.get_mutable(), "v", 1, &it));
  const std::string json = holder.to_json();  // { "v" : VALUE }
  const std::size_t start = json.find(':');
  const std::size_t end = json.rfind('}');
  if (start == std::string::npos || end == std::string::npos || end <= start) return json;
  std::string value = json.substr(start + 1, end - start - 1);
  while (!value.empty() && value.front() == ' ') value.erase(value.begin());
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return value;
}

bool is_container(const bson_iter_t& it) { return BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it); }

/// One value as canonical Extended JSON: its BSON type is part of it (1 and 1.0 differ).
std::string canonical_json(const bson_iter_t& it) {
  Document holder;
  detail::check_append(bson_append_iter(holder.get_mutable(), "v", 1, &it));
  return holder.to_canonical_json();
}

/// The keywords whose array is a set: MongoDB's $jsonSchema gives their order no meaning
/// (a document must have each `required` name, be one of the `bsonType`/`type` types, equal
/// one of the `enum` values).
bool is_set_keyword(std::string_view key) {
  return key == "required" || key == "bsonType" || key == "type" || key == "enum";
}

/// The elements of an array as canonical JSON, sorted: two sets are equal when these are.
std::vector<std::string> sorted_elements(const bson_iter_t& array) {
  std::vector<std::string> out;
  bson_iter_t element;
  if (BSON_ITER_HOLDS_ARRAY(&array) && bson_iter_recurse(&array, &element))
    while (bson_iter_next(&element)) out.push_back(canonical_json(element));
  std::sort(out.begin(), out.end());
  return out;
}

void differences_at(const std::string& prefix, bson_iter_t planned, bson_iter_t existing,
                    std::vector<std::string>& out, int depth) {
  const auto path_of = [&](const char* key) { return prefix.empty() ? std::string(key) : prefix + "." + key; };
  bson_iter_t p = planned;
  while (bson_iter_next(&p)) {
    bson_iter_t e = existing;
    const std::string path = path_of(bson_iter_key(&p));
    if (!bson_iter_find_w_len(&e, bson_iter_key(&p), static_cast<int>(bson_iter_key_len(&p)))) {
      out.push_back(path + ": only in the model (" + value_json(p) + ")");
      continue;
    }
    if (is_set_keyword(bson_iter_key(&p)) && BSON_ITER_HOLDS_ARRAY(&p) && BSON_ITER_HOLDS_ARRAY(&e)) {
      if (sorted_elements(p) != sorted_elements(e))
        out.push_back(path + ": server " + value_json(e) + ", model " + value_json(p));
      continue;
    }
    if (is_container(p) && bson_iter_type(&p) == bson_iter_type(&e) && depth < 100) {
      bson_iter_t p_child, e_child;
      if (bson_iter_recurse(&p, &p_child) && bson_iter_recurse(&e, &e_child)) {
        differences_at(path, p_child, e_child, out, depth + 1);
        continue;
      }
    }
    if (canonical_json(p) != canonical_json(e))
      out.push_back(path + ": server " + value_json(e) + ", model " + value_json(p));
  }
  bson_iter_t e = existing;
  while (bson_iter_next(&e)) {
    bson_iter_t p_find = planned;
    if (!bson_iter_find_w_len(&p_find, bson_iter_key(&e), static_cast<int>(bson_iter_key_len(&e))))
      out.push_back(path_of(bson_iter_key(&e)) + ": only on the server (" + value_json(e) + ")");
  }
}

/// The sub-document `key` of `parent` (empty when it has none).
Document child_document(const bson_t* parent, const char* key) {
  bson_iter_t it;
  bson_t view;
  if (bson_iter_init_find(&it, parent, key) && is_container(it) && detail::held_document(it, view))
    return Document::copy_of(&view);
  return Document();
}

std::string string_or(const bson_t* document, const char* key, std::string fallback) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, document, key) && BSON_ITER_HOLDS_UTF8(&it)) return bson_iter_utf8(&it, nullptr);
  return fallback;
}

/// The collection's options as listCollections reports them; nullopt when it does not exist.
std::optional<Document> collection_options(const Database& db, const std::string& collection) {
  Document command;
  bson_t* out = command.get_mutable();
  detail::check_append(bson_append_int32(out, "listCollections", 15, 1));
  {
    detail::ChildWriter filter(out, "filter");
    detail::check_append(
        bson_append_utf8(filter.get(), "name", 4, collection.data(), static_cast<int>(collection.size())));
    filter.close();
  }
  const Document reply = db.run_command(command);
  const Document batch = child_document(child_document(reply.get(), "cursor").get(), "firstBatch");
  bson_iter_t it;
  if (bson_iter_init(&it, batch.get()))
    while (bson_iter_next(&it)) {
      bson_t entry;
      // Compared by name: some engines ignore the filter.
      if (BSON_ITER_HOLDS_DOCUMENT(&it) && detail::held_document(it, entry) && string_or(&entry, "name", "") == collection)
        return child_document(&entry, "options");
    }
  return std::nullopt;
}

Document validation_command(const char* verb, const ValidatorPlan& plan) {
  Document command;
  bson_t* out = command.get_mutable();
  detail::check_append(bson_append_utf8(out, verb, -1, plan.collection.data(), static_cast<int>(plan.collection.size())));
  detail::check_append(bson_append_document(out, "validator", 9, plan.validator.get()));
  const std::string_view level = to_string(plan.level), action = to_string(plan.action);
  detail::check_append(bson_append_utf8(out, "validationLevel", 15, level.data(), static_cast<int>(level.size())));
  detail::check_append(bson_append_utf8(out, "validationAction", 16, action.data(), static_cast<int>(action.size())));
  return command;
}

}  // namespace

std::vector<std::string> schema_differences(const bson_t* planned, const bson_t* existing) {
  std::vector<std::string> out;
  bson_iter_t p, e;
  if (!bson_iter_init(&p, planned) || !bson_iter_init(&e, existing)) {
    out.emplace_back("(a document is not valid BSON)");
    return out;
  }
  differences_at("", p, e, out, 0);
  return out;
}

ValidatorSyncReport sync_validators(const Database& db, const std::vector<ValidatorPlan>& plans, bool dry_run) {
  ValidatorSyncReport report;
  report.dry_run = dry_run;
  for (const ValidatorPlan& plan : plans) {
    ValidatorSyncEntry entry;
    entry.planned = plan;
    const std::optional<Document> options = collection_options(db, plan.collection);
    if (!options) {
      entry.step = ValidatorSyncEntry::Step::created;
      entry.differences.emplace_back("the collection does not exist");
      if (!dry_run) {
        try {
          db.run_command(validation_command("create", plan));
        } catch (const ServerError& error) {
          if (error.code() != 48) throw;  // NamespaceExists: created meanwhile, so update it
          db.run_command(validation_command("collMod", plan));
          entry.step = ValidatorSyncEntry::Step::updated;
        }
      }
      report.collections.push_back(std::move(entry));
      continue;
    }
    entry.existing = *options;
    const Document validator = child_document(options->get(), "validator");
    if (validator.empty())
      entry.differences.emplace_back("validator: none on the server");
    else
      for (std::string& line : schema_differences(plan.validator.get(), validator.get()))
        entry.differences.push_back("validator." + line);
    // MongoDB's defaults when a collection's options do not say.
    const std::string level = string_or(options->get(), "validationLevel", "strict");
    const std::string action = string_or(options->get(), "validationAction", "error");
    if (level != to_string(plan.level))
      entry.differences.push_back("validationLevel: server " + level + ", planned " + std::string(to_string(plan.level)));
    if (action != to_string(plan.action))
      entry.differences.push_back("validationAction: server " + action + ", planned " +
                                  std::string(to_string(plan.action)));
    if (!entry.differences.empty()) {
      entry.step = ValidatorSyncEntry::Step::updated;
      if (!dry_run) db.run_command(validation_command("collMod", plan));
    }
    report.collections.push_back(std::move(entry));
  }
  return report;
}

std::string ValidatorSyncReport::to_string() const {
  std::ostringstream out;
  for (const ValidatorSyncEntry& entry : collections) {
    const char* verb = "unchanged   ";
    if (entry.step == ValidatorSyncEntry::Step::created) verb = dry_run ? "would create" : "created     ";
    if (entry.step == ValidatorSyncEntry::Step::updated) verb = dry_run ? "would update" : "updated     ";
    out << verb << " " << entry.planned.collection << " (" << entry.planned.model << "): validationLevel "
        << odm::to_string(entry.planned.level) << ", validationAction " << odm::to_string(entry.planned.action)
        << "\n";
    if (entry.step != ValidatorSyncEntry::Step::created)
      for (const std::string& line : entry.differences) out << "    " << line << "\n";
  }
  return out.str();
}

}  // namespace odm
