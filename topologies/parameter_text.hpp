// One model parameter set from text as a topology file would give it, for `opsim compare
// --set NAME.KEY=VALUE` and the GUI's overrides: the same units, ranges and messages as the
// file's key. A list is YAML flow text, its brackets optional ("1.1,0.9" or
// "[{n: 1024, rate: 35TFLOPS}]").
#pragma once

#include <string>
#include <string_view>

#include "hw_models/model_parameters.hpp"

namespace opsim {

/// Sets `row` of `model` from `text`. Throws InputError "CONTEXT: what is wrong".
void set_parameter_from_text(const CpuParameter& row, std::string_view text, CpuModel& model,
                             const std::string& context);
void set_parameter_from_text(const DramParameter& row, std::string_view text, DramModel& model,
                             const std::string& context);
void set_parameter_from_text(const GpuParameter& row, std::string_view text, GpuModel& model,
                             const std::string& context);
void set_parameter_from_text(const DiskParameter& row, std::string_view text, DiskModel& model,
                             const std::string& context);
void set_parameter_from_text(const LinkParameter& row, std::string_view text, LinkModel& model,
                             const std::string& context);
void set_parameter_from_text(const CollectiveParameter& row, std::string_view text,
                             CollectiveModel& model, const std::string& context);

/// `row`'s value in `model` as set_parameter_from_text() reads it back (lists in flow form).
std::string parameter_text(const CpuParameter& row, const CpuModel& model);
std::string parameter_text(const DramParameter& row, const DramModel& model);
std::string parameter_text(const GpuParameter& row, const GpuModel& model);
std::string parameter_text(const DiskParameter& row, const DiskModel& model);
std::string parameter_text(const LinkParameter& row, const LinkModel& model);
std::string parameter_text(const CollectiveParameter& row, const CollectiveModel& model);

}  // namespace opsim
