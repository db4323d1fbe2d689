#pragma once
// The mapping alone: models, the BSON codec and the field types (ObjectId, Decimal, Money,
// Embedded, Ref, Subset, LocalTime), without typed queries, the driver, joins or indexes.
// For files that only turn structs into BSON and back (a model's own header, a message
// handler); scripts/bench_compile.sh measures what it and the umbrella <odm/odm.hpp> cost.

#include <odm/error.hpp>

#include <odm/reflect/enums.hpp>
#include <odm/reflect/members.hpp>

#include <odm/model/collection_name.hpp>
#include <odm/model/id.hpp>
#include <odm/model/model.hpp>

#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/convert.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/record.hpp>
#include <odm/bson/scalars.hpp>

#include <odm/fields/binary.hpp>
#include <odm/fields/decimal.hpp>
#include <odm/fields/embedded.hpp>
#include <odm/fields/local_time.hpp>
#include <odm/fields/money.hpp>
#include <odm/fields/object_id.hpp>
#include <odm/fields/ref.hpp>
#include <odm/fields/subset.hpp>
