/// \file chapters/05_training/outputs.cpp
/// \brief The program's files (see outputs.hpp).
#include "outputs.hpp"

#include <filesystem>
#include <iostream>
#include <system_error>
#include <vector>

#include "common/apparatus/files.hpp"
#include "common/apparatus/plot.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/checks.hpp"

namespace ch05 {

namespace {

/// Every file --save writes into `dir`: the six parameter files and the set's manifest.
std::vector<std::filesystem::path> written_files(const std::string& dir) {
  std::vector<std::filesystem::path> files = ch05::model_files(dir);
  files.push_back(std::filesystem::path(dir) / app::kManifestName);
  return files;
}

}  // namespace

std::string output_problem(const Outputs& outputs, const app::PlotSettings& plots,
                           const std::optional<std::string>& init_dir) {
  namespace fs = std::filesystem;
  const std::optional<std::string>& save_dir = outputs.save_dir;
  const std::optional<std::string>& loss_log = outputs.loss_log;
  std::vector<app::OtherFile> files;  // every file another flag names, for the plot folder's clash
  if (loss_log) files.push_back({"--loss-log", *loss_log});
  if (save_dir)
    for (const fs::path& f : written_files(*save_dir)) files.push_back({"--save", f});
  if (init_dir)
    for (const fs::path& f : written_files(*init_dir)) files.push_back({"--init", f, true});
  if (const std::string clash = app::plot_folder_clash(plots, files, "ch05_"); !clash.empty()) return clash;
  if (save_dir) {
    if (const std::string problem = app::folder_problem(*save_dir); !problem.empty()) return "--save: " + problem;
    for (const fs::path& f : written_files(*save_dir)) {
      if (const std::string problem = app::replace_problem(f); !problem.empty()) return "--save: " + problem;
    }
  }
  if (loss_log) {
    const fs::path log(*loss_log);
    std::error_code ec;
    if (const std::string problem = app::replace_problem(log); !problem.empty()) return "--loss-log: " + problem;
    // Its folder must be there already, unless it is the plot folder, which the run creates first.
    const bool plot_folder = plots.enabled && plots.folder &&
                             fs::weakly_canonical(log.parent_path(), ec) == fs::weakly_canonical(*plots.folder, ec);
    if (const std::string problem = app::folder_problem(log.parent_path(), false);
        !problem.empty() && !(plot_folder && !fs::exists(log.parent_path(), ec))) {
      return "--loss-log: " + problem;
    }
    const fs::path target = fs::weakly_canonical(log, ec);
    for (const app::OtherFile& f : files) {
      std::error_code ec2;
      if (f.flag != "--loss-log" && fs::weakly_canonical(f.path, ec2) == target) {
        const bool same_text = log.lexically_normal() == f.path.lexically_normal();
        return "--loss-log " + app::quoted_path(log) + " is " +
               (same_text ? std::string() : app::quoted_path(f.path) + ", ") + "one of the files " + f.flag +
               (f.read ? " reads" : " writes");
      }
    }
  }
  return "";
}

void write_outputs(const Outputs& flags, const attn::OneHeadModel& model, const ch05::TrainLog& log) {
  if (flags.loss_log) {
    ch05::write_loss_log(log.pass_loss, *flags.loss_log);
    std::cout << "  per-pass mean losses written to " << *flags.loss_log << '\n';
  }
  if (flags.save_dir) {
    ch05::save_model(model, *flags.save_dir);
    std::cout << "  trained parameters written to " << *flags.save_dir << " (E, Wq, Wk, Wv, Wc, bc .txt)\n";
  }
}

void save_walk(const Outputs& outputs, const Walk& walk) {
  if (!outputs.save_dir) return;
  ch05::save_model(walk.final, *outputs.save_dir);
  std::cout << "  parameters after " << app::counted(static_cast<long long>(walk.total()), "update") << " written to "
            << *outputs.save_dir << " (E, Wq, Wk, Wv, Wc, bc .txt)\n";
}

}  // namespace ch05
