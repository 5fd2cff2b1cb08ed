/// \file chapters/05_training/outputs.hpp
/// \brief What chapter 05's program writes besides standard output: the trained parameters
/// (--save) and the per-pass losses (--loss-log). Checked before any work, written when training is done.
///
/// The trained model and loss curve of the article's "Make it learn" are kept for later chapters and
/// for plotting elsewhere; the files' formats are those of save_model and write_loss_log.
/// Throws: app::IoError (exit 1) if a file cannot be written (write_outputs, save_walk); output_problem
/// throws nothing beyond std::bad_alloc.
/// Sources: the article, "Make it learn" (its trained model and loss curve).
#pragma once

#include <optional>
#include <string>

#include "common/apparatus/plot.hpp"
#include "common/attention/backprop.hpp"
#include "parameter_files.hpp"
#include "training.hpp"
#include "walkthrough.hpp"

namespace ch05 {

/// The files the reader asked for.
struct Outputs {
  std::optional<std::string> save_dir;  ///< --save: the folder of E.txt ... bc.txt
  std::optional<std::string> loss_log;  ///< --loss-log: one line per pass
};

/// Why the outputs cannot be written, found before any work: "--save: <problem>" if `save_dir`
/// (created if needed) or one of the files save_model writes there cannot be replaced,
/// "--loss-log: <problem>" if `loss_log` is a folder or its folder does not accept new files (a
/// folder the plots will create counts as there), or if it is one of the files --save writes or
/// --init (`init_dir`) reads; and any clash of the plot folder with those files
/// (app::plot_folder_clash). Empty if all can be written.
std::string output_problem(const Outputs& outputs, const app::PlotSettings& plots,
                           const std::optional<std::string>& init_dir);

/// Training writes its outputs (the loss log, the parameters) as soon as it is done, each followed
/// by a line on standard output.
void write_outputs(const Outputs& flags, const attn::OneHeadModel& model, const TrainLog& log);

/// The step-through's --save: writes the parameters after its last update into the folder, if
/// given, followed by a line on standard output.
void save_walk(const Outputs& outputs, const Walk& walk);

}  // namespace ch05
