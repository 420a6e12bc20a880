// Self-checking testbench for wide_count. Inputs change on the falling edge; outputs are
// checked 1 ns later against a model that keeps one count of enabled cycles since reset.
`timescale 1ns/1ps
module tb_wide_count;
    reg        clk, rst, en;
    wire [4:0] count;
    wire [1:0] phase;
    wire       tick;
    integer    m_n;        // enabled cycles since reset, modulo 75
    integer    errors, n, seed, r;
    reg [4:0]  e_count;
    reg [1:0]  e_phase;
    reg        e_tick;

    wide_count dut (.clk(clk), .rst(rst), .en(en), .count(count), .phase(phase), .tick(tick));

    initial clk = 0;
    always #5 clk = ~clk;

    always @(posedge clk) begin
        if (rst)     m_n <= 0;
        else if (en) m_n <= (m_n + 1) % 75;
    end

    task check;
        begin
            #1;
            e_count = m_n % 25;
            e_phase = m_n / 25;
            e_tick  = en & (e_count == 5'd24);
            if (count !== e_count || phase !== e_phase || tick !== e_tick) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH t=%0t rst=%b en=%b: got count=%0d phase=%0d tick=%b, expected count=%0d phase=%0d tick=%b",
                             $time, rst, en, count, phase, tick, e_count, e_phase, e_tick);
            end
        end
    endtask

    task step(input r_i, input en_i);
        begin
            @(negedge clk);
            rst = r_i; en = en_i;
            check;
        end
    endtask

    initial begin
        errors = 0; seed = 75;
        rst = 1; en = 0;
        step(1, 1);
        // directed: several full rounds with enable held, then gaps at the phase boundary
        for (n = 0; n < 300; n = n + 1) step(0, 1);
        for (n = 0; n < 24; n = n + 1) step(0, 1);
        step(0, 0); step(0, 0); step(0, 1); step(0, 0); step(0, 1);
        // reset in the middle of a phase, with and without enable
        for (n = 0; n < 40; n = n + 1) step(0, 1);
        step(1, 0); step(0, 1); step(0, 1); step(1, 1); step(0, 0);
        // random: reset 1/128, enable 3/4
        for (n = 0; n < 5000; n = n + 1) begin
            r = $random(seed);
            step(r[6:0] == 7'd0, r[9:8] != 2'd0);
        end
        @(negedge clk);
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
