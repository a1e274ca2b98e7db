//! "Export as Flink job": the running scenario as the engine's Flink 2.3 job
//! (`barrierlab_engine::export`, docs/export.md), packed into one zip for a download.
//!
//! Pure (scenario and time in, bytes or the engine's refusal out), so it is tested natively; the
//! button that downloads it is in `components/export.rs`.

use std::io::{Cursor, Write};

use barrierlab_engine::export::export_flink_job;
use barrierlab_engine::scenario::Scenario;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, System, ZipWriter};

/// How to run an export, shown next to the button.
pub const RUN_HINT: &str = "unzip, then ./run.sh --seconds 30; needs Java 17 and Flink 2.3's jars: pip install --no-deps apache-flink-libraries==2.3.0";

/// The export's folder (and, with `.zip`, the download's name): `<scenario-name>-flink-job`, the
/// name reduced to letters, digits, `-` and `_` as the engine names its checkpoint directory.
pub fn folder_name(scenario: &Scenario) -> String {
    format!(
        "{}-flink-job",
        barrierlab_engine::export::slug(&scenario.name)
    )
}

/// The download's file name: `<scenario-name>-flink-job.zip`.
pub fn zip_name(scenario: &Scenario) -> String {
    format!("{}.zip", folder_name(scenario))
}

/// The zip of the scenario's Flink job: every file of the export under `folder_name/`, deflated,
/// dated `modified` (so `run.sh`, which recompiles when a source is newer than its last build,
/// sees a new export unzipped over an old one), `run.sh` with mode 0755 and the rest 0644.
/// `Err` is the engine's refusal (what Flink cannot express), word for word.
pub fn flink_job_zip(scenario: &Scenario, modified: DateTime) -> Result<Vec<u8>, String> {
    let files = export_flink_job(scenario)?;
    let folder = folder_name(scenario);
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .system(System::Unix)
        .last_modified_time(modified);
    let failed = |e: &dyn std::fmt::Display| format!("could not write the zip: {e}");
    for file in &files {
        let mode = if file.executable { 0o755 } else { 0o644 };
        zip.start_file(
            format!("{folder}/{}", file.path),
            options.unix_permissions(mode),
        )
        .map_err(|e| failed(&e))?;
        zip.write_all(file.contents.as_bytes())
            .map_err(|e| failed(&e))?;
    }
    let cursor = zip.finish().map_err(|e| failed(&e))?;
    Ok(cursor.into_inner())
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use barrierlab_engine::scenario::{preset, Fault};
    use zip::ZipArchive;

    use super::*;

    fn when() -> DateTime {
        DateTime::from_date_and_time(2026, 12, 1, 14, 30, 0).unwrap()
    }

    #[test]
    fn the_zip_holds_the_engines_files_under_one_folder() {
        let scenario = preset("seed-demo").unwrap();
        let expected = export_flink_job(&scenario).unwrap();
        let bytes = flink_job_zip(&scenario, when()).unwrap();
        let mut archive = ZipArchive::new(Cursor::new(bytes)).unwrap();
        assert_eq!(archive.len(), expected.len());
        let mut names = Vec::new();
        for (i, file) in expected.iter().enumerate() {
            let mut entry = archive.by_index(i).unwrap();
            let name = format!("seed-demo-flink-job/{}", file.path);
            assert_eq!(entry.name().unwrap(), name);
            names.push(name);
            let mode = entry.unix_mode().expect("a unix mode") & 0o777;
            assert_eq!(
                mode,
                if file.executable { 0o755 } else { 0o644 },
                "{}",
                file.path
            );
            assert_eq!(entry.last_modified(), Some(when()));
            let mut text = String::new();
            entry.read_to_string(&mut text).unwrap();
            assert_eq!(text, file.contents, "{}", file.path);
        }
        // The files a run needs, run.sh the only executable one.
        for wanted in [
            "seed-demo-flink-job/run.sh",
            "seed-demo-flink-job/config.yaml",
            "seed-demo-flink-job/scenario.json",
            "seed-demo-flink-job/src/main/java/barrierlab/BarrierLabJob.java",
        ] {
            assert!(names.iter().any(|n| n == wanted), "{wanted} missing");
        }
        let run = archive.by_name("seed-demo-flink-job/run.sh").unwrap();
        assert_eq!(run.unix_mode().unwrap() & 0o777, 0o755);
    }

    #[test]
    fn the_current_scenario_is_exported_with_its_seed_and_faults() {
        let mut scenario = preset("seed-2pc").unwrap();
        scenario.seed = 1234;
        scenario.faults.push(Fault::Kill {
            task: "count-per-key#1".into(),
            at: "5s".into(),
        });
        let bytes = flink_job_zip(&scenario, when()).unwrap();
        let mut archive = ZipArchive::new(Cursor::new(bytes)).unwrap();
        let mut json = String::new();
        archive
            .by_name("seed-2pc-flink-job/scenario.json")
            .unwrap()
            .read_to_string(&mut json)
            .unwrap();
        assert_eq!(Scenario::from_json(&json).unwrap(), scenario);
    }

    #[test]
    fn a_refused_scenario_is_the_engines_message_and_no_zip() {
        let mut scenario = preset("seed-demo").unwrap();
        scenario.faults.push(Fault::Decline {
            task: "count-per-key#0".into(),
            checkpoint: 2,
        });
        let err = flink_job_zip(&scenario, when()).unwrap_err();
        assert_eq!(Err(err.clone()), export_flink_job(&scenario).map(|_| ()));
        assert!(err.contains("decline"), "{err}");
    }

    #[test]
    fn folder_names_are_safe() {
        let mut scenario = preset("seed-demo").unwrap();
        assert_eq!(zip_name(&scenario), "seed-demo-flink-job.zip");
        scenario.name = "my job/v2".into();
        assert_eq!(folder_name(&scenario), "my-job-v2-flink-job");
        scenario.name = String::new();
        assert_eq!(folder_name(&scenario), "scenario-flink-job");
    }
}
