// Builds tables the kit needs in shapes Spark SQL does not produce directly.
package icebergconformance;

import java.io.IOException;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.RewriteManifests;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.OutputFile;

public final class SyntheticTables {
  private SyntheticTables() {}

  /**
   * Rewrite the data manifests of the current snapshot into one manifest per live data file
   * (entries kept as EXISTING with their snapshot and sequence numbers), committed as one
   * rewrite-manifests snapshot. Returns the number of manifests written.
   */
  public static int oneManifestPerFile(Table table) throws IOException {
    Snapshot snap = table.currentSnapshot();
    RewriteManifests rewrite = table.rewriteManifests();
    String prefix = table.location() + "/metadata/split-" + UUID.randomUUID() + "-m";
    int n = 0;
    for (ManifestFile m : snap.dataManifests(table.io())) {
      rewrite.deleteManifest(m);
      try (ManifestReader<DataFile> reader = ManifestFiles.read(m, table.io(), table.specs())) {
        for (DataFile file : reader) {
          DataFile f = file.copy();
          OutputFile out = table.io().newOutputFile(prefix + n + ".avro");
          ManifestWriter<DataFile> writer =
              ManifestFiles.write(org.apache.iceberg.TableUtil.formatVersion(table), table.specs().get(m.partitionSpecId()), out, null);
          try {
            writer.existing(f, m.snapshotId(), f.dataSequenceNumber(), f.fileSequenceNumber());
          } finally {
            writer.close();
          }
          rewrite.addManifest(writer.toManifestFile());
          n++;
        }
      }
    }
    rewrite.commit();
    return n;
  }
}
