#pragma once
// A reader's columns bound to the members of its row type, declared together: the fields it
// asks CsvTable::read for and the copy of each row come from one list, so a reader names each
// column once (no field list beside a copy loop).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "microbench/harness/csv_table.h"

namespace pk {

template <class R>
class RowReader {
 public:
  RowReader& text(const char* column, std::string R::*m, bool required = true) {
    return bind({column, ColumnType::text, required},
                [m](R& r, const CsvTable& t, size_t i, int f) { r.*m = std::string(t.text(i, f)); });
  }
  template <class I>  // int or int64_t members; an empty cell reads as 0
  RowReader& integer(const char* column, I R::*m, bool required = true) {
    return bind({column, ColumnType::integer, required},
                [m](R& r, const CsvTable& t, size_t i, int f) { r.*m = static_cast<I>(t.integer(i, f)); });
  }
  // An empty cell reads as `empty` (NaN where an empty cell must stay told apart from a value).
  RowReader& number(const char* column, double R::*m, bool required = true, double empty = 0) {
    return bind({column, ColumnType::number, required},
                [m, empty](R& r, const CsvTable& t, size_t i, int f) { r.*m = t.number(i, f, empty); });
  }
  // A column with a conversion of its own: set(row, table, row index, field index).
  using Copy = std::function<void(R&, const CsvTable&, size_t, int)>;
  RowReader& column(Field f, Copy set) { return bind(std::move(f), std::move(set)); }
  // The last column bound holds a measured or chosen quantity: a negative value is refused
  // (for those whose name does not say so: csv_table.h).
  RowReader& never_negative() {
    fields_.back().non_negative = true;
    return *this;
  }
  // The row's line in the file.
  RowReader& line(size_t R::*m) {
    line_ = m;
    return *this;
  }
  // A column the reader asks for but uses itself (status, git_commit, ...).
  RowReader& also(Field f) { return bind(std::move(f), nullptr); }

  const std::vector<Field>& fields() const { return fields_; }

  // The rows of a table read with fields(), its field indices looked up once: rows(i).
  class Rows {
   public:
    R operator()(size_t i) const {
      R r;
      for (size_t k = 0; k < reader_.copies_.size(); ++k)
        if (reader_.copies_[k]) reader_.copies_[k](r, t_, i, index_[k]);
      if (reader_.line_) r.*reader_.line_ = t_.line_of(i);
      return r;
    }

   private:
    friend class RowReader;
    Rows(const RowReader& reader, const CsvTable& t) : reader_(reader), t_(t) {
      for (const auto& f : reader.fields_) index_.push_back(t.field(f.name));
    }
    const RowReader& reader_;
    const CsvTable& t_;
    std::vector<int> index_;
  };
  Rows rows(const CsvTable& t) const { return Rows(*this, t); }

 private:
  RowReader& bind(Field f, Copy c) {
    fields_.push_back(std::move(f));
    copies_.push_back(std::move(c));
    return *this;
  }
  std::vector<Field> fields_;
  std::vector<Copy> copies_;
  size_t R::*line_ = nullptr;
};

}  // namespace pk
