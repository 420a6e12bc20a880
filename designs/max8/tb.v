// Self-checking testbench for max8: all equal, one large byte at each position, ties at every pair of
// positions, and random words with few distinct values (many ties), against a model that scans upward.
`timescale 1ns/1ps
module tb_max8;
    reg  [63:0] data;
    wire [7:0]  mx;
    wire [2:0]  idx;
    reg  [7:0]  m_mx;
    reg  [2:0]  m_idx;
    integer errors, i, j, k, seed;

    max8 dut (.data(data), .mx(mx), .idx(idx));

    task apply(input [63:0] v);
        begin
            data = v;
            #1;
            m_mx = data[7:0];
            m_idx = 0;
            for (k = 1; k < 8; k = k + 1)
                if (data[8*k +: 8] > m_mx) begin
                    m_mx = data[8*k +: 8];
                    m_idx = k;
                end
            if (mx !== m_mx || idx !== m_idx) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH data=%h: got mx=%h idx=%0d, expected mx=%h idx=%0d", data, mx, idx, m_mx, m_idx);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 8;
        apply(64'h0); apply({8{8'hFF}}); apply({8{8'h5A}});
        for (i = 0; i < 8; i = i + 1) begin
            apply(64'hFF << (8 * i));
            apply(64'h01 << (8 * i));
            apply({8{8'h10}} | (64'h80 << (8 * i)));
            for (j = i + 1; j < 8; j = j + 1)
                apply((64'hC3 << (8 * i)) | (64'hC3 << (8 * j)));
        end
        for (i = 0; i < 4000; i = i + 1) begin
            case (i % 3)
                0: apply({$random(seed), $random(seed)});
                1: apply({$random(seed), $random(seed)} & {8{8'h03}});
                default: apply({$random(seed), $random(seed)} | {8{8'hF8}});
            endcase
        end
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
