#pragma once
// Private to the library: defines the copies, moves and destructor of a class whose header
// only declares them, so that they are compiled once, here, and not in every file that
// copies, moves or destroys one (each such file compiled them again at -O2).

#define ODM_DEFINE_COPIES_AND_MOVES(Class)              \
  Class::Class(const Class&) = default;                 \
  Class::Class(Class&&) noexcept = default;             \
  Class& Class::operator=(const Class&) = default;      \
  Class& Class::operator=(Class&&) noexcept = default

#define ODM_DEFINE_SPECIAL_MEMBERS(Class) \
  ODM_DEFINE_COPIES_AND_MOVES(Class);     \
  Class::~Class() = default
