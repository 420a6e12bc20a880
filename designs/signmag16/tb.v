// Self-checking testbench for signmag16: sign and magnitude corners (zeros, equal magnitudes, the carry out of
// bit 14) and random operands, against an integer model.
`timescale 1ns/1ps
module tb_signmag16;
    reg  [15:0] a, b;
    wire [15:0] y;
    reg  [15:0] m_y;
    integer errors, i, j, seed, ma, mb, s;

    signmag16 dut (.a(a), .b(b), .y(y));

    task check(input [15:0] x, input [15:0] z);
        begin
            a = x; b = z;
            #1;
            ma = x[14:0]; mb = z[14:0];
            if (x[15] == z[15]) m_y = {x[15], 15'((ma + mb) % 32768)};
            else if (ma >= mb) begin s = ma - mb; m_y = {(s == 0) ? 1'b0 : x[15], 15'(s)}; end
            else m_y = {z[15], 15'(mb - ma)};
            if (y !== m_y) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH: a=%h b=%h got %h expected %h", x, z, y, m_y);
            end
        end
    endtask

    reg [15:0] corner [0:7];
    initial begin
        errors = 0; seed = 16;
        corner[0] = 16'h0000; corner[1] = 16'h8000; corner[2] = 16'h7FFF; corner[3] = 16'hFFFF;
        corner[4] = 16'h0001; corner[5] = 16'h8001; corner[6] = 16'h4000; corner[7] = 16'hC000;
        for (i = 0; i < 8; i = i + 1)
            for (j = 0; j < 8; j = j + 1) check(corner[i], corner[j]);
        for (i = 0; i < 5000; i = i + 1) begin
            a = $random(seed); b = $random(seed);
            if (i % 4 == 0) b = {~a[15], a[14:0]};                  // equal magnitudes, different signs
            check(a, b);
        end
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
