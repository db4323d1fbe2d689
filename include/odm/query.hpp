#pragma once
// odm's typed queries: filters, updates, sorts and projections built from member
// pointers (see odm/query/path.hpp for the operators, odm/query/parts.hpp for the parts
// of Money and DisplayMoney).

#include <odm/query/expression.hpp>
#include <odm/query/filter.hpp>
#include <odm/query/parts.hpp>
#include <odm/query/path.hpp>
#include <odm/query/projection.hpp>
#include <odm/query/sort.hpp>
#include <odm/query/update.hpp>
#include <odm/query/value.hpp>
