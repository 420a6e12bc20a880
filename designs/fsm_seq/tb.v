// Self-checking testbench for fsm_seq: model keeps the last four samples since reset.
`timescale 1ns/1ps
module tb_fsm_seq;
    reg  clk, rst_n, din;
    wire det;
    reg  [3:0] hist;     // newest sample in bit 0
    integer    nsamp;    // samples since reset, saturating at 4
    reg        m_det;
    integer errors, n, seed, r;
    reg [15:0] pattern;

    fsm_seq dut (.clk(clk), .rst_n(rst_n), .din(din), .det(det));

    initial clk = 0;
    always #5 clk = ~clk;

    always @(posedge clk) begin
        if (!rst_n) begin
            hist <= 4'b0; nsamp <= 0; m_det <= 1'b0;
        end else begin
            hist <= {hist[2:0], din};
            nsamp <= (nsamp < 4) ? nsamp + 1 : 4;
            m_det <= (nsamp >= 3) && ({hist[2:0], din} == 4'b1011);
        end
    end

    task step(input r_i, input d_i);
        begin
            @(negedge clk);
            rst_n = r_i; din = d_i;
            #1;
            if (det !== m_det) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH t=%0t rst_n=%b din=%b: got det=%b, expected %b",
                                          $time, rst_n, din, det, m_det);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 1011;
        rst_n = 0; din = 0;
        // directed: 1011011 (overlap), 1011 split by a reset, all ones, all zeros
        pattern = 16'b1011011_0_1011_1111;
        for (n = 15; n >= 0; n = n - 1) step(1, pattern[n]);
        step(1, 1); step(1, 0); step(0, 1); step(1, 1); step(1, 1); step(1, 0); step(1, 1); step(1, 1);
        for (n = 0; n < 8; n = n + 1) step(1, 0);
        // random stream, reset 1/64, and a biased stretch that makes many matches
        for (n = 0; n < 3000; n = n + 1) begin
            r = $random(seed);
            step(r[5:0] != 0, n < 1500 ? r[8] : (r[9:8] != 0));
        end
        step(1, 0);
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
