// Self-checking testbench for prio_enc8: all 256 request patterns (exhaustive).
`timescale 1ns/1ps
module tb_prio_enc8;
    reg  [7:0] req;
    wire [2:0] idx;
    wire       valid;
    reg  [2:0] exp_idx;
    reg        exp_valid;
    integer errors, i, k;

    prio_enc8 dut (.req(req), .idx(idx), .valid(valid));

    initial begin
        errors = 0;
        for (i = 0; i < 256; i = i + 1) begin
            req = i;
            #1;
            // model: the last set bit seen going upward is the highest
            exp_idx = 0; exp_valid = 0;
            for (k = 0; k < 8; k = k + 1)
                if (req[k]) begin exp_idx = k; exp_valid = 1; end
            if (idx !== exp_idx || valid !== exp_valid) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH req=%b: got idx=%0d valid=%b, expected idx=%0d valid=%b",
                                          req, idx, valid, exp_idx, exp_valid);
            end
        end
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
