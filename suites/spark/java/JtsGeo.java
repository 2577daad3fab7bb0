// JTS (org.locationtech.jts, bundled in the Iceberg runtime jar) as an independent reader of
// WKB and WKT, for the geometry/geography vectors (vectors/binary/generate_geo.py).
//
// Run with the runtime jar and the kit's helper jar on the class path; one request per line on
// stdin, one answer per line on stdout:
//   wkb <hex>   ->  ok <WKT of the geometry>     or  error <message>
//   wkt <text>  ->  ok <WKT written back>         or  error <message>
// The WKT is written with the dimensions the geometry has (Z, M or ZM), as JTS's WKTWriter
// writes only the ordinates it is told to.
package icebergconformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.locationtech.jts.geom.Coordinate;
import org.locationtech.jts.geom.CoordinateXYM;
import org.locationtech.jts.geom.CoordinateXYZM;
import org.locationtech.jts.geom.Geometry;
import org.locationtech.jts.io.Ordinate;
import org.locationtech.jts.io.WKBReader;
import org.locationtech.jts.io.WKTReader;
import org.locationtech.jts.io.WKTWriter;

public final class JtsGeo {
  private JtsGeo() {}

  static String wkt(Geometry g) {
    Coordinate c = g.getCoordinate();
    WKTWriter w = new WKTWriter(4);
    if (c instanceof CoordinateXYZM) {
      w.setOutputOrdinates(Ordinate.createXYZM());
    } else if (c instanceof CoordinateXYM) {
      w.setOutputOrdinates(Ordinate.createXYM());
    } else if (c != null && !Double.isNaN(c.getZ())) {
      w.setOutputOrdinates(Ordinate.createXYZ());
    } else {
      w.setOutputOrdinates(Ordinate.createXY());
    }
    return w.write(g);
  }

  static String answer(String line) {
    try {
      if (line.startsWith("wkb ")) {
        return "ok " + wkt(new WKBReader().read(WKBReader.hexToBytes(line.substring(4).trim())));
      }
      if (line.startsWith("wkt ")) {
        return "ok " + wkt(new WKTReader().read(line.substring(4)));
      }
      return "error unknown request";
    } catch (Exception e) {
      return "error " + String.valueOf(e).replace('\n', ' ');
    }
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      System.out.println(answer(line));
      System.out.flush();
    }
  }
}
