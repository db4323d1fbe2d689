#pragma once
// odm: a header-heavy C++20 object-document mapper for MongoDB. This umbrella header
// brings in the whole public API.

#include <odm/error.hpp>

#include <odm/reflect/enums.hpp>
#include <odm/reflect/members.hpp>

#include <odm/model/id.hpp>
#include <odm/model/model.hpp>
#include <odm/model/tag.hpp>
#include <odm/model/timestamps.hpp>

#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/convert.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/record.hpp>
#include <odm/bson/scalars.hpp>
#include <odm/bson/tagged_variant.hpp>

#include <odm/fields/binary.hpp>
#include <odm/fields/decimal.hpp>
#include <odm/fields/embedded.hpp>
#include <odm/fields/local_time.hpp>
#include <odm/fields/money.hpp>
#include <odm/fields/object_id.hpp>
#include <odm/fields/ref.hpp>
#include <odm/fields/subset.hpp>

#include <odm/query.hpp>

#include <odm/driver/client.hpp>
#include <odm/driver/collection.hpp>
#include <odm/driver/cursor.hpp>
#include <odm/driver/errors.hpp>
#include <odm/driver/log.hpp>
#include <odm/driver/options.hpp>
#include <odm/driver/session.hpp>
#include <odm/model/collection_name.hpp>

#include <odm/index/index.hpp>
#include <odm/index/sync.hpp>
#include <odm/join/join.hpp>
#include <odm/join/lookup.hpp>
#include <odm/join/subset.hpp>
#include <odm/join/tree.hpp>
#include <odm/join/counts.hpp>

#include <odm/evolution/extra.hpp>
#include <odm/evolution/changes.hpp>
#include <odm/evolution/migrate.hpp>
#include <odm/evolution/versions.hpp>
#include <odm/evolution/rename.hpp>
#include <odm/aggregation/pipeline.hpp>
#include <odm/pagination/page.hpp>
#include <odm/evolution/schema.hpp>
