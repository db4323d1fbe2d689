#pragma once
// odm's typed queries: filters, updates, sorts and projections built from member
// pointers (see odm/query/path.hpp for the operators).

#include <odm/query/expression.hpp>
#include <odm/query/filter.hpp>
#include <odm/query/path.hpp>
#include <odm/query/projection.hpp>
#include <odm/query/sort.hpp>
#include <odm/query/update.hpp>
#include <odm/query/value.hpp>
