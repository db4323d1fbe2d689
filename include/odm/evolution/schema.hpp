#pragma once
// Collection validators from the model: a `$jsonSchema` that says exactly what odm writes,
// read from the member table (odm/bson/members.hpp), and a sync that puts it on the server.
//
//   odm::Document schema = odm::json_schema<Order>();           // {bsonType: "object", ...}
//   auto report = odm::sync_validators<Order, Customer>(db);     // create or collMod
//   auto plan = odm::sync_validators<Order>(db, {.dry_run = true});
//   std::cout << plan.to_string();                               // what it would change, and why
//
// What the schema says, member by member (the BSON types odm's codecs write):
//   bool, std::int32_t, std::int64_t, double, std::string   "bool", "int", "long", "double", "string"
//   odm::Decimal, DecimalFromLegacy                          "decimal" (a double is refused)
//   odm::Money / DisplayMoney                                their sub-documents, closed
//   odm::ScaledAmount<F>                                     "long"
//   time points                                              "date"
//   odm::ObjectId, odm::Binary                               "objectId", "binData"
//   an enum stored by name                                   "string" and `enum` of its names
//   std::optional<T>                                         T or "null" (odm writes null for nullopt);
//                                                            not required
//   a member without an empty state                          required, unless defaulted
//                                                            (odm::defaulted, `when_absent`)
//   structs, Embedded<T>                                     "object" with their own properties
//   vectors, std::array, Subset, RefMany                     "array" with `items`
//   std::map<std::string, T>                                 "object" whose additionalProperties are T
//   std::variant                                             `anyOf` its alternatives (`bsonType` list
//                                                            when all are scalars)
//   Ref<T>, ParentRef<T>                                     T's id type (ParentRef: or null)
//   renamed members                                          under their stored name
//   a struct with a kind tag (odm::tag)                      its tag field, required, `enum` of its
//                                                            value and those it was renamed from
// A struct without an odm::Extra member gets `additionalProperties: false` (its documents
// hold nothing else); one with an Extra member keeps other fields, so its schema allows
// them. A struct that contains itself is described to three levels, then only as an
// object ($jsonSchema has no references). SchemaOptions::unknown_fields = allowed drops the restriction everywhere, which a
// rolling deploy needs when new code writes fields the old schema does not list (README,
// "Validators from the model").

#include <odm/bson/document.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/members.hpp>
#include <odm/bson/record.hpp>
#include <odm/driver/client.hpp>
#include <odm/model/collection_name.hpp>
#include <odm/reflect/enums.hpp>
#include <odm/reflect/pretty_name.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

namespace odm {

/// Whether fields a struct does not declare may be stored.
enum class UnknownFields {
  /// `additionalProperties: false` on every struct without an odm::Extra member.
  refused,
  /// Never `additionalProperties: false`: other programs and newer versions of the model
  /// may add fields (during a rolling deploy, for instance).
  allowed,
};

struct SchemaOptions {
  UnknownFields unknown_fields = UnknownFields::refused;
};

/// MongoDB's validationLevel: which writes the validator checks.
enum class ValidationLevel {
  strict,    ///< every insert and update
  moderate,  ///< inserts, and updates of documents that already pass (during a migration)
  off,       ///< none
};
/// MongoDB's validationAction: what a write that fails the validator does.
enum class ValidationAction {
  error,  ///< it is refused (DocumentValidationFailure, code 121)
  warn,   ///< it is stored and the server logs it
};

std::string_view to_string(ValidationLevel level) noexcept;
std::string_view to_string(ValidationAction action) noexcept;

namespace detail {

/// One $jsonSchema, in the parts odm emits (written out by to_document()).
struct SchemaNode {
  std::vector<std::string> bson_types;  // one or several; none: anyOf says it
  std::vector<std::string> enum_values;
  bool enum_with_null = false;
  std::vector<std::string> required;
  // properties: names and schemas side by side (a pair would need SchemaNode complete here)
  std::vector<std::string> property_names;
  std::vector<SchemaNode> property_schemas;
  std::optional<bool> additional_properties;      // true/false, or
  std::unique_ptr<SchemaNode> additional_schema;  // a schema for every other field (maps)
  std::unique_ptr<SchemaNode> items;
  std::vector<SchemaNode> any_of;

  /// Makes null acceptable too (std::optional, ParentRef).
  void allow_null();
  /// The schema as a BSON document.
  Document to_document() const;
};

/// The types a record is being expanded for, to stop at a struct that contains itself.
using OpenRecords = std::vector<const std::type_info*>;
/// How many levels of a struct that contains itself a schema describes.
inline constexpr std::size_t recursion_levels = 3;

/// The schema of a value of kind Kind (the specializations below, one per kind).
template <class Kind>
struct SchemaOf {
  static_assert(dependent_false<Kind>,
                "odm::json_schema: a member's codec states a kind that is none of odm::kinds (odm/bson/kind.hpp), "
                "so its stored BSON type is unknown; state one of them in the codec, e.g. `using kind = "
                "odm::kind_of<double>;` or `using kind = odm::kinds::any_document;`");
  static SchemaNode make(const SchemaOptions&, OpenRecords&) { return {}; }
};

template <class Record, bool Root, bool WithoutParents>
SchemaNode record_schema(const SchemaOptions& options, OpenRecords& open) {
  SchemaNode node;
  node.bson_types = {"object"};
  // A struct that contains itself: $jsonSchema has no references, so it is described to
  // `recursion_levels` levels and below that only as an object.
  const std::type_info* self = &typeid(Record);
  std::size_t levels = 0;
  for (const std::type_info* type : open) levels += *type == *self ? 1 : 0;
  if (levels >= recursion_levels) return node;
  open.push_back(self);
  // A kind's tag (odm::tag) comes first: its value, or one it was renamed from (which
  // documents written before the rename still hold).
  if constexpr (tagged<Record>) {
    constexpr Tag tag = tag_of<Record>;
    SchemaNode kind;
    kind.bson_types = {"string"};
    kind.enum_values.emplace_back(tag.value);
    for (std::size_t i = 0; i < tag.previous_count; ++i) kind.enum_values.emplace_back(tag.previous[i]);
    node.property_names.emplace_back(tag.field);
    node.property_schemas.push_back(std::move(kind));
    node.required.emplace_back(tag.field);
  }
  bool has_id = false;
  members<Record>::for_each([&](auto member) {
    using Member = decltype(member);
    using Type = typename Member::type;
    if constexpr (unknown_field_keeper<Type>) {
      return;  // not a field: it holds the others
    } else if constexpr (WithoutParents && is_parent_reference<Member>) {
      return;
    } else {
      const std::string name(Member::stored_name_at(Root));
      has_id = has_id || name == "_id";
      node.property_names.push_back(name);
      node.property_schemas.push_back(SchemaOf<resolved_kind_t<typename Member::kind>>::make(options, open));
      // A member renamed in its expand phase (odm::renamed_from) may be under either name:
      // the older version writes only the old one.
      if constexpr (!Member::previous_name.empty()) {
        node.property_names.emplace_back(Member::previous_name);
        node.property_schemas.push_back(SchemaOf<resolved_kind_t<typename Member::kind>>::make(options, open));
      } else if (Member::when_absent == Absent::refused) {
        node.required.push_back(name);
      }
    }
  });
  // A model with schema versions (odm/evolution/versions.hpp) writes its version after its
  // members, as an int32. Documents from before the model had versions lack it.
  if constexpr (Root && has_schema_versions<Record>) {
    SchemaNode version;
    version.bson_types = {"int"};
    node.property_names.emplace_back(schema_version_field);
    node.property_schemas.push_back(std::move(version));
  }
  // The server gives a document without `_id` an ObjectId.
  if (Root && !has_id) {
    SchemaNode id;
    id.bson_types = {"objectId"};
    node.property_names.insert(node.property_names.begin(), "_id");
    node.property_schemas.insert(node.property_schemas.begin(), std::move(id));
  }
  if (!keeps_unknown_fields<Record> && options.unknown_fields == UnknownFields::refused)
    node.additional_properties = false;
  open.pop_back();
  return node;
}

template <bson_type_t Type>
struct SchemaOf<kinds::scalar<Type>> {
  static SchemaNode make(const SchemaOptions&, OpenRecords&) {
    SchemaNode node;
    node.bson_types = {std::string(bson_type_name(Type))};
    return node;
  }
};
template <class E>
struct SchemaOf<kinds::enumeration<E>> {
  static SchemaNode make(const SchemaOptions&, OpenRecords&) {
    SchemaNode node;
    node.bson_types = {"string"};
    for (const auto& entry : enum_entries<E>) node.enum_values.emplace_back(entry.name);
    return node;
  }
};
template <class Record>
struct SchemaOf<kinds::document<Record>> {
  static SchemaNode make(const SchemaOptions& options, OpenRecords& open) {
    return record_schema<Record, false, false>(options, open);
  }
};
template <class Item>
struct SchemaOf<kinds::subset_item<Item>> {
  static SchemaNode make(const SchemaOptions& options, OpenRecords& open) {
    return record_schema<Item, false, true>(options, open);
  }
};
template <>
struct SchemaOf<kinds::any_document> {
  static SchemaNode make(const SchemaOptions&, OpenRecords&) {
    SchemaNode node;
    node.bson_types = {"object"};
    return node;
  }
};
template <class Element>
struct SchemaOf<kinds::array<Element>> {
  static SchemaNode make(const SchemaOptions& options, OpenRecords& open) {
    SchemaNode node;
    node.bson_types = {"array"};
    node.items = std::make_unique<SchemaNode>(SchemaOf<resolved_kind_t<Element>>::make(options, open));
    return node;
  }
};
template <class Value>
struct SchemaOf<kinds::map<Value>> {
  static SchemaNode make(const SchemaOptions& options, OpenRecords& open) {
    SchemaNode node;
    node.bson_types = {"object"};
    node.additional_schema = std::make_unique<SchemaNode>(SchemaOf<resolved_kind_t<Value>>::make(options, open));
    return node;
  }
};
template <class Value>
struct SchemaOf<kinds::nullable<Value>> {
  static SchemaNode make(const SchemaOptions& options, OpenRecords& open) {
    SchemaNode node = SchemaOf<resolved_kind_t<Value>>::make(options, open);
    node.allow_null();
    return node;
  }
};
template <class T>
struct SchemaOf<kinds::id_of<T>> : SchemaOf<resolved_kind_t<kinds::id_of<T>>> {};

/// A variant: anyOf its alternatives, or one bsonType list when each is a bare type.
SchemaNode one_of_schema(std::vector<SchemaNode> alternatives);

template <class... Kinds>
struct SchemaOf<kinds::one_of<Kinds...>> {
  static SchemaNode make(const SchemaOptions& options, OpenRecords& open) {
    std::vector<SchemaNode> alternatives;
    (alternatives.push_back(SchemaOf<resolved_kind_t<Kinds>>::make(options, open)), ...);
    return one_of_schema(std::move(alternatives));
  }
};

}  // namespace detail

/// The `$jsonSchema` of the documents odm writes for the model T (see the top of this file).
template <reflectable T>
Document json_schema(const SchemaOptions& options = {}) {
  detail::OpenRecords open;
  return detail::record_schema<T, true, false>(options, open).to_document();
}

/// The validator a collection of T gets: {$jsonSchema: json_schema<T>()}, with the level and
/// action it is applied with.
struct ValidatorPlan {
  std::string collection;
  std::string model;  // for the report
  Document validator;
  ValidationLevel level = ValidationLevel::strict;
  ValidationAction action = ValidationAction::error;
};

struct ValidatorSyncOptions {
  ValidationLevel level = ValidationLevel::strict;
  ValidationAction action = ValidationAction::error;
  SchemaOptions schema{};
  /// Only compare and report; change nothing.
  bool dry_run = false;
};

/// A model's plan, for its collection (change `collection` for another one).
template <reflectable T>
ValidatorPlan validator_plan(const ValidatorSyncOptions& options = {}) {
  ValidatorPlan plan;
  plan.collection = std::string(collection_name<T>);
  plan.model = std::string(detail::unqualified_type_name<T>());
  Document schema = json_schema<T>(options.schema);
  detail::check_append(bson_append_document(plan.validator.get_mutable(), "$jsonSchema", 11, schema.get()));
  plan.level = options.level;
  plan.action = options.action;
  return plan;
}

struct ValidatorSyncEntry {
  enum class Step {
    created,    ///< the collection did not exist: created with the validator
    updated,    ///< collMod replaced the validator, level or action
    unchanged,  ///< the server already had it
  };
  ValidatorPlan planned;
  Step step = Step::unchanged;
  /// The collection's options as listCollections reported them (empty when it did not exist).
  Document existing;
  /// One line per difference: "properties.price.bsonType: server \"double\", model \"decimal\"".
  std::vector<std::string> differences;
};

struct ValidatorSyncReport {
  std::vector<ValidatorSyncEntry> collections;
  bool dry_run = false;

  /// The plan and its outcome, with every difference found.
  std::string to_string() const;
};

/// Compares each plan with its collection's options (listCollections), then creates the
/// collection with the validator or updates it (collMod). Idempotent.
ValidatorSyncReport sync_validators(const Database& db, const std::vector<ValidatorPlan>& plans, bool dry_run = false);

/// The same for the models' own collections.
template <class... Models>
ValidatorSyncReport sync_validators(const Database& db, const ValidatorSyncOptions& options = {}) {
  return sync_validators(db, {validator_plan<Models>(options)...}, options.dry_run);
}

/// The differences between two $jsonSchema (or any) documents, path by path: what only
/// `planned` has ("only in the model"), what only `existing` has ("only on the server"),
/// and values that differ. Empty when they are the same.
std::vector<std::string> schema_differences(const bson_t* planned, const bson_t* existing);

}  // namespace odm
